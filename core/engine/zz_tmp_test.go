package engine_test

import (
	"encoding/json"
	"bufio"
	"os"
	"testing"
	"runtime/pprof"
	"runtime"

	"github.com/toolsift/toolsift/core/snapshot"
)

func TestZZAllocs(t *testing.T) {
	cat := os.Getenv("ZZCAT")
	if cat == "" { t.Skip() }
	data, _ := os.ReadFile("../../bench/results/data/" + cat + "/catalog.snap")
	e, err := snapshot.Open(data)
	if err != nil { t.Fatal(err) }
	f, _ := os.Open("../../bench/results/data/" + cat + "/queries.jsonl")
	var reqs [][]byte
	sc := bufio.NewScanner(f); sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var q struct{ Text string `json:"text"` }
		json.Unmarshal(sc.Bytes(), &q)
		b, _ := json.Marshal(map[string]any{"version": "tool-search.v1", "query": q.Text, "limit": 10, "candidate_limit": 20})
		reqs = append(reqs, b)
	}
	for _, r := range reqs { e.SearchJSON(r) }
	i := 0
	a := testing.AllocsPerRun(len(reqs), func() { e.SearchJSON(reqs[i%len(reqs)]); i++ })
	t.Logf("allocs/query %.1f", a)
	if p := os.Getenv("ZZPROF"); p != "" {
		pf, _ := os.Create(p)
		pprof.StartCPUProfile(pf)
		for n := 0; n < 20000; n++ { e.SearchJSON(reqs[n%len(reqs)]) }
		pprof.StopCPUProfile()
	}
}

func TestZZMem(t *testing.T) {
	cat := os.Getenv("ZZCAT")
	if cat == "" { t.Skip() }
	data, _ := os.ReadFile("../../bench/results/data/" + cat + "/catalog.snap")
	e, _ := snapshot.Open(data)
	f, _ := os.Open("../../bench/results/data/" + cat + "/queries.jsonl")
	var reqs [][]byte
	sc := bufio.NewScanner(f); sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var q struct{ Text string `json:"text"` }
		json.Unmarshal(sc.Bytes(), &q)
		b, _ := json.Marshal(map[string]any{"version": "tool-search.v1", "query": q.Text, "limit": 10, "candidate_limit": 20})
		reqs = append(reqs, b)
	}
	for _, r := range reqs { e.SearchJSON(r) }
	runtime.MemProfileRate = 1
	for n := 0; n < 3000; n++ { e.SearchJSON(reqs[n%len(reqs)]) }
	pf, _ := os.Create(os.Getenv("ZZMEM"))
	pprof.Lookup("allocs").WriteTo(pf, 0)
	pf.Close()
}

