package main

import (
	"bytes"
	"os"
	"testing"
)

// The page make bench writes into is docs/BENCHMARKS.md; its hand-written
// parts (method, other tables) must survive every run, so the markers must be
// there once each, under the heading render would add if they were missing.
func TestBenchmarksPageHasOneGeneratedSection(t *testing.T) {
	page, err := os.ReadFile("../../docs/BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{startMarker, endMarker} {
		if n := bytes.Count(page, []byte(m)); n != 1 {
			t.Fatalf("docs/BENCHMARKS.md has %q %d times, want once", m, n)
		}
	}
	if !bytes.Contains(page, []byte(heading+"\n\n"+startMarker+"\n")) {
		t.Fatalf("docs/BENCHMARKS.md: %q does not follow %q", startMarker, heading)
	}
	start := bytes.Index(page, []byte(startMarker))
	end := bytes.Index(page, []byte(endMarker))
	got := replaceSection(page, []byte("NEW TABLE\n"))
	want := string(page[:start+len(startMarker)]) + "\nNEW TABLE\n" + string(page[end:])
	if string(got) != want {
		t.Fatal("replaceSection changed the page outside its markers")
	}
}

func TestReplaceSectionAddsTheSectionToAPageWithout(t *testing.T) {
	got := string(replaceSection([]byte("# Benchmarks\n\ntext\n"), []byte("T\n")))
	want := "# Benchmarks\n\ntext\n\n" + heading + "\n\n" + startMarker + "\nT\n" + endMarker + "\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
