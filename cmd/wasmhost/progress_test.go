package main

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// lockedBuffer is written by the progress timer's goroutine and read by
// the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func runPhases(p *buildProgress, pause time.Duration) {
	for _, phase := range []string{"read", "import", "index", "encode"} {
		p.begin(phase)
		time.Sleep(pause)
	}
	p.done()
}

func TestBuildProgressIsSilentForFastBuilds(t *testing.T) {
	var out lockedBuffer
	runPhases(newBuildProgressAfter(&out, time.Hour), 0)
	require.Empty(t, out.String())
	runPhases(newBuildProgress(nil), 0) // no writer: nothing to do, no panic
}

func TestBuildProgressPrintsEveryPhaseOfASlowBuild(t *testing.T) {
	var out lockedBuffer
	runPhases(newBuildProgressAfter(&out, 30*time.Millisecond), 20*time.Millisecond)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var finished []string
	line := regexp.MustCompile(`^snapshot build: (\w+): \d+\.\d\d s \(\d+\.\d\d s elapsed\)$`)
	for _, l := range lines {
		if m := line.FindStringSubmatch(l); m != nil {
			finished = append(finished, m[1])
			continue
		}
		require.Regexp(t, `^snapshot build: \w+ …$`, l, "a line that is neither a finished nor a running phase")
	}
	require.Equal(t, []string{"read", "import", "index", "encode"}, finished, out.String())
}

func TestBuildProgressReportsABuildThatEndsBeforeTheTimer(t *testing.T) {
	var out lockedBuffer
	p := newBuildProgressAfter(&out, 0)
	p.timer.Stop() // as if done ran before the timer's goroutine
	p.begin("read")
	p.done()
	require.Regexp(t, `^snapshot build: read: `, out.String())
}
