package hostapi

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero/sys"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// mixedRequests is a mix of searches (plain, filtered, decomposed, refused)
// from the golden sets, for the concurrency and determinism tests.
func mixedRequests(t testing.TB) [][]byte {
	t.Helper()
	var requests [][]byte
	for _, name := range []string{"misc.jsonl.gz", "workflows.jsonl.gz"} {
		for _, line := range readGolden(t, name) {
			requests = append(requests, withVersion(t, line))
		}
	}
	for i, line := range readGolden(t, "intent_use_when.jsonl.gz") {
		if i%97 == 0 {
			requests = append(requests, withVersion(t, line))
		}
	}
	return append(requests, []byte(chineseQuery), []byte(workflowQuery), []byte(`{"version":"tool-search.v1","query":"x","bogus":1}`))
}

func TestConcurrentSearches(t *testing.T) {
	e := openDWS(t, WithMaxInstances(4))
	ctx := context.Background()
	requests := mixedRequests(t)
	want := make([]answer, len(requests))
	for i, r := range requests {
		want[i] = wasmAnswer(e.Search(ctx, r))
		require.False(t, want[i].failed(), want[i].Other)
	}
	const goroutines, perGoroutine = 8, 50
	var wg sync.WaitGroup
	var mismatches atomic.Int64
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				k := (g*perGoroutine + i*7) % len(requests)
				var got answer
				if i%5 == 4 {
					got = wasmAnswer(e.SearchExplain(ctx, requests[k]))
					if got.Out != "" {
						continue // explain answers are checked in TestWasmSearchExplainParity
					}
				} else {
					got = wasmAnswer(e.Search(ctx, requests[k]))
				}
				if got != want[k] {
					mismatches.Add(1)
					t.Errorf("goroutine %d request %s:\n got %+v\nwant %+v", g, requests[k], got, want[k])
				}
				if live := e.live.Load(); live > 4 {
					t.Errorf("%d instances alive, bound is 4", live)
				}
			}
		})
	}
	wg.Wait()
	require.Zero(t, mismatches.Load())
	require.LessOrEqual(t, e.created.Load(), int64(4))
	t.Logf("%d goroutines x %d searches on %d instances (%d created): all identical to the single-threaded answers",
		goroutines, perGoroutine, e.live.Load(), e.created.Load())
}

func TestBadRequests(t *testing.T) {
	e := openDWS(t, WithMaxInstances(1))
	ctx := context.Background()
	good, err := e.Search(ctx, []byte(chineseQuery))
	require.NoError(t, err)
	created := e.created.Load()

	huge := `{"version":"tool-search.v1","query":"` + strings.Repeat("文件", 20000) + `"}` // 120 KiB
	cases := []struct {
		name, request, reason string
	}{
		{"over 64 KiB", huge, "request_too_large"},
		{"invalid JSON", `{"version":"tool-search.v1","query":`, "invalid_request_json"},
		{"not an object", `[1,2,3]`, "invalid_request_json"},
		{"trailing data", `{"version":"tool-search.v1","query":"x"} {}`, "invalid_request_json"},
		{"unknown field", `{"version":"tool-search.v1","query":"x","bogus":1}`, "invalid_request_json"},
		{"wrong version", `{"version":"tool-search.v2","query":"x"}`, "unsupported_version"},
		{"no version", `{"query":"x"}`, "unsupported_version"},
		{"empty", ``, "invalid_request_json"},
		{"invalid limit", `{"version":"tool-search.v1","query":"x","limit":-1}`, "invalid_limit"},
	}
	for _, c := range cases {
		_, err := e.Search(ctx, []byte(c.request))
		var typed *wire.Error
		require.ErrorAs(t, err, &typed, c.name)
		if c.reason != "" {
			require.Equal(t, c.reason, typed.Reason, "%s: %v", c.name, err)
		}
		require.Contains(t, []string{"validation", "discovery"}, typed.Category, c.name)
		require.Contains(t, []int{3, 6}, typed.Code, c.name)
		require.NotEmpty(t, typed.Message, c.name)
		require.Equal(t, created, e.created.Load(), "%s: the instance was replaced (a trap?)", c.name)
		native := nativeAnswer(nativeEngine(t).SearchJSON([]byte(c.request)))
		require.Equal(t, native, wasmAnswer(nil, err), c.name)
	}
	for _, request := range []string{`{"version":"schema-inspect.v1"`, `{"version":"schema-inspect.v1","canonical_path":"chat","bogus":1}`, huge} {
		_, err := e.Inspect(ctx, []byte(request))
		var typed *wire.Error
		require.ErrorAs(t, err, &typed)
		require.Equal(t, "validation", typed.Category)
	}

	// Far over the limit the host refuses before copying anything into the
	// module (TestOversizedRequestIsNotCopied).
	tooBig := make([]byte, 64<<20+1)
	for _, call := range []func(context.Context, []byte) ([]byte, error){e.Search, e.SearchExplain, e.Inspect} {
		_, err = call(ctx, tooBig)
		var typed *wire.Error
		require.ErrorAs(t, err, &typed)
		require.Equal(t, wire.Error{Category: "validation", Code: 3, Reason: "request_too_large", Message: typed.Message}, *typed)
	}

	require.Equal(t, created, e.created.Load())
	require.Equal(t, int64(1), e.live.Load())
	again, err := e.Search(ctx, []byte(chineseQuery))
	require.NoError(t, err)
	require.Equal(t, good, again)
}

// badSnapshots are corruptions of a good snapshot and the reason each must
// be refused with.
func badSnapshots(good []byte) []struct {
	name   string
	data   []byte
	reason string
} {
	flipped := bytes.Clone(good)
	flipped[24+len(good)/2] ^= 0x10
	version := bytes.Clone(good)
	binary.LittleEndian.PutUint32(version[8:12], 99)
	magic := bytes.Clone(good)
	magic[0] = 'X'
	length := bytes.Clone(good)
	binary.LittleEndian.PutUint64(length[16:24], uint64(len(good)))
	return []struct {
		name   string
		data   []byte
		reason string
	}{
		{"flipped body byte", flipped, "invalid_snapshot"},
		{"truncated", good[:len(good)/2], "invalid_snapshot"},
		{"header only", good[:32], "invalid_snapshot"},
		{"unknown format version", version, "unsupported_snapshot_version"},
		{"bad magic", magic, "invalid_snapshot"},
		{"wrong body length", length, "invalid_snapshot"},
		{"empty", []byte{}, "invalid_snapshot"},
		{"nil", nil, "invalid_snapshot"},
		{"trailing garbage", append(bytes.Clone(good), 0), "invalid_snapshot"},
	}
}

func TestBadSnapshots(t *testing.T) {
	ctx := context.Background()
	good := snapshotDWS(t)
	e := openSnapshot(t, good, WithMaxInstances(2))
	before, err := e.Search(ctx, []byte(chineseQuery))
	require.NoError(t, err)
	info := e.Info()

	for _, bad := range badSnapshots(good) {
		_, err := Open(ctx, bad.data)
		var typed *wire.Error
		require.ErrorAs(t, err, &typed, bad.name)
		require.Equal(t, "validation", typed.Category, bad.name)
		require.Equal(t, 3, typed.Code, bad.name)
		require.Equal(t, bad.reason, typed.Reason, "%s: %v", bad.name, err)

		err = e.Swap(ctx, bad.data)
		require.ErrorAs(t, err, &typed, bad.name)
		require.Equal(t, bad.reason, typed.Reason, bad.name)
		require.Equal(t, info, e.Info(), bad.name)
		after, err := e.Search(ctx, []byte(chineseQuery))
		require.NoError(t, err, bad.name)
		require.Equal(t, before, after, bad.name)
	}
	require.LessOrEqual(t, e.live.Load(), int64(2))
}

// changedCatalog returns the DWS dump with one tool description changed, as
// the JSON bundle form of the dws format ({"catalog.json":{…},"tools/…":{…}})
// with catalog.json's recorded source_hash updated, and its native engine.
func changedCatalog() ([]byte, *engine.Engine, error) {
	files, err := dws.FilesFromTarGz(fixtures.DWSCatalog)
	if err != nil {
		return nil, nil, err
	}
	var shard map[string]any
	if err := json.Unmarshal(files["tools/chat.json"], &shard); err != nil {
		return nil, nil, err
	}
	tool := shard["tools"].(map[string]any)["chat.query_msg_read_status"].(map[string]any)
	tool["description"] = "查询指定消息的已读状态（hostapi 测试改写的描述）"
	if files["tools/chat.json"], err = json.Marshal(shard); err != nil {
		return nil, nil, err
	}

	// The importer refuses a dump whose recorded source_hash is stale and
	// names the right one: record it.
	_, err = dws.Import(files)
	if err == nil {
		return nil, nil, errors.New("the importer accepted a stale source_hash")
	}
	m := regexp.MustCompile(`the dump hashes to "(sha256:[0-9a-f]{64})"`).FindStringSubmatch(err.Error())
	if m == nil {
		return nil, nil, fmt.Errorf("unexpected importer error: %w", err)
	}
	var index map[string]json.RawMessage
	if err := json.Unmarshal(files["catalog.json"], &index); err != nil {
		return nil, nil, err
	}
	index["source_hash"], _ = json.Marshal(m[1])
	if files["catalog.json"], err = json.Marshal(index); err != nil {
		return nil, nil, err
	}

	cat, err := dws.Import(files)
	if err != nil {
		return nil, nil, err
	}
	native, err := engine.New(cat, profile.DWSV1)
	if err != nil {
		return nil, nil, err
	}
	bundle := map[string]json.RawMessage{}
	for name, data := range files {
		bundle[name] = data
	}
	out, err := json.Marshal(bundle)
	return out, native, err
}

// secondSnapshot is the changed DWS catalog's snapshot, built by the module
// from the JSON bundle form (without termination checks: 4 s instead of
// 20 s; the bytes are the same), and its native engine.
var secondSnapshot = sync.OnceValues(func() (*snapshotB, error) {
	bundle, native, err := changedCatalog()
	if err != nil {
		return nil, err
	}
	snap, err := BuildSnapshot(context.Background(), "dws", bundle)
	if err != nil {
		return nil, err
	}
	return &snapshotB{snap: snap, native: native}, nil
})

type snapshotB struct {
	snap   []byte
	native *engine.Engine
}

const swapRequest = `{"version":"tool-search.v1","query":"查询指定消息的已读状态","limit":3}`

// swapFixture opens snapshot A and returns B and the exact answers of
// swapRequest from both.
func swapFixture(t *testing.T) (e *Engine, snapA, snapB, answerA, answerB []byte) {
	t.Helper()
	snapA = snapshotDWS(t)
	b, err := secondSnapshot()
	require.NoError(t, err)
	e = openSnapshot(t, snapA, WithMaxInstances(4))
	answerA, err = e.Search(context.Background(), []byte(swapRequest))
	require.NoError(t, err)
	answerB, werr := b.native.SearchJSON([]byte(swapRequest))
	require.Nil(t, werr)
	return e, snapA, b.snap, answerA, answerB
}

func TestSwap(t *testing.T) {
	ctx := context.Background()
	e, snapA, snapB, answerA, answerB := swapFixture(t)
	b, _ := secondSnapshot()
	wantB, err := compile.Snapshot(b.native.Catalog(), profile.DWSV1)
	require.NoError(t, err)
	require.True(t, bytes.Equal(wantB, snapB), "bundle snapshot differs from the native build")

	hashA, hashB := e.Info().SourceHash, b.native.Version().SourceHash
	require.NotEqual(t, hashA, hashB)
	require.Equal(t, hashA, sourceHashOf(t, answerA))
	require.Equal(t, hashB, sourceHashOf(t, answerB))
	request := []byte(swapRequest)

	require.NoError(t, e.Swap(ctx, snapB))
	require.Equal(t, hashB, e.Info().SourceHash)
	require.Equal(t, len(snapB), e.Info().SnapshotBytes)
	got, err := e.Search(ctx, request)
	require.NoError(t, err)
	require.Equal(t, string(answerB), string(got))
	inspectB := fmt.Sprintf(`{"version":"schema-inspect.v1","canonical_path":"chat.query_msg_read_status","expected_source_hash":%q,"expected_surface_hash":%q}`,
		hashB, e.Info().SurfaceHash)
	spec, err := e.Inspect(ctx, []byte(inspectB))
	require.NoError(t, err)
	require.Contains(t, string(spec), "hostapi 测试改写的描述")
	// The old catalog's hashes are now stale.
	_, err = e.Inspect(ctx, []byte(strings.Replace(inspectB, hashB, hashA, 1)))
	var typed *wire.Error
	require.ErrorAs(t, err, &typed)
	require.Equal(t, "catalog_changed", typed.Reason)
	require.NoError(t, e.Swap(ctx, snapA))
	require.Equal(t, hashA, e.Info().SourceHash)
	got, err = e.Search(ctx, request)
	require.NoError(t, err)
	require.Equal(t, string(answerA), string(got))
}

// TestConcurrentSwap: four goroutines search without pause while the
// snapshot flips ten times: every answer is entirely one snapshot's, and no
// call fails.
func TestConcurrentSwap(t *testing.T) {
	ctx := context.Background()
	e, snapA, snapB, answerA, answerB := swapFixture(t)
	hashA := e.Info().SourceHash
	request := []byte(swapRequest)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var seenA, seenB, failures atomic.Int64
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				out, err := e.Search(ctx, request)
				switch {
				case err != nil:
					failures.Add(1)
					t.Errorf("search during swaps: %v", err)
				case string(out) == string(answerA):
					seenA.Add(1)
				case string(out) == string(answerB):
					seenB.Add(1)
				default:
					failures.Add(1)
					t.Errorf("answer from neither snapshot (source_hash %s): %s", sourceHashOf(t, out), out)
				}
			}
		})
	}
	for i := range 10 {
		next := snapB
		if i%2 == 1 {
			next = snapA
		}
		time.Sleep(20 * time.Millisecond)
		require.NoError(t, e.Swap(ctx, next))
	}
	time.Sleep(20 * time.Millisecond)
	close(stop)
	wg.Wait()
	require.Zero(t, failures.Load())
	require.Equal(t, hashA, e.Info().SourceHash) // ten swaps: back to A
	require.NotZero(t, seenA.Load())
	require.NotZero(t, seenB.Load())
	t.Logf("during 10 swaps: %d answers from snapshot A, %d from B, 0 errors; %d instances created in all",
		seenA.Load(), seenB.Load(), e.created.Load())
}

func TestDeadlineInterruptible(t *testing.T) {
	e := openDWS(t, WithMaxInstances(2), WithInterruptibleCalls())
	want, err := e.Search(context.Background(), []byte(chineseQuery))
	require.NoError(t, err)
	created := e.created.Load()

	// Already expired or canceled: refused before any instance is touched.
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err = e.Search(expired, []byte(chineseQuery))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	canceled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	_, err = e.Inspect(canceled, []byte(`{}`))
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, e.Swap(canceled, snapshotDWS(t)), context.Canceled)
	_, err = BuildSnapshot(canceled, "dws", fixtures.DWSCatalog)
	require.ErrorIs(t, err, context.Canceled)
	_, err = Open(expired, snapshotDWS(t))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Equal(t, created, e.created.Load(), "an expired context must not cost an instance")

	// Expiring during a long call: BuildSnapshot takes seconds in wasm.
	start := time.Now()
	ctx, cancel3 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel3()
	_, err = BuildSnapshot(ctx, "dws", fixtures.DWSCatalog, WithInterruptibleCalls())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	buildTime := time.Since(start)
	require.Less(t, buildTime, 5*time.Second, "the call was not interrupted")
	var exit *sys.ExitError
	require.ErrorAs(t, err, &exit, "want the interruption, not the pre-check: %v", err)

	// Swap whose open is interrupted: the old snapshot keeps serving.
	ctx, cancel4 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel4()
	require.ErrorIs(t, e.Swap(ctx, snapshotDWS(t)), context.DeadlineExceeded)

	// Searches with deadlines around their own duration until one expires
	// inside the module.
	interrupted := 0
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 400 && interrupted < 3; i++ {
		d := time.Duration(100+rng.IntN(3000)) * time.Microsecond
		ctx, cancel := context.WithTimeout(context.Background(), d)
		out, err := e.Search(ctx, []byte(chineseQuery))
		cancel()
		if err == nil {
			require.Equal(t, want, out)
			continue
		}
		require.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
		if errors.As(err, &exit) {
			interrupted++
			// The interrupted instance is gone; the next call gets a
			// fresh one and the right answer.
			out, err := e.Search(context.Background(), []byte(chineseQuery))
			require.NoError(t, err)
			require.Equal(t, want, out)
		}
	}
	t.Logf("BuildSnapshot interrupted after %v; searches interrupted inside the module: %d", buildTime, interrupted)
	require.NotZero(t, interrupted)

	// The engine still answers, with fresh instances where needed.
	got, err := e.Search(context.Background(), []byte(chineseQuery))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.LessOrEqual(t, e.live.Load(), int64(2))
}

// TestDeadlineDefault: without WithInterruptibleCalls, searches whose
// deadlines fall around their own duration get either the right answer or
// the deadline's error, and the engine keeps answering correctly from a pool
// that never exceeds its bound.
func TestDeadlineDefault(t *testing.T) {
	e := openDWS(t, WithMaxInstances(1))
	want, err := e.Search(context.Background(), []byte(chineseQuery))
	require.NoError(t, err)
	late := 0
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000 && late < 3; i++ {
		// From 1 µs: a warm search takes about 75 µs, and with deadlines
		// of 50–1,050 µs none expired in 5 runs of 400 calls once
		// snapshots stored the identity tables (format 6), so the
		// deadline's path went untested.
		d := time.Duration(1+rng.IntN(300)) * time.Microsecond
		ctx, cancel := context.WithTimeout(context.Background(), d)
		out, err := e.Search(ctx, []byte(chineseQuery))
		cancel()
		if err == nil {
			require.Equal(t, want, out)
			continue
		}
		require.ErrorIs(t, err, context.DeadlineExceeded)
		late++
	}
	require.NotZero(t, late, "no deadline expired")
	got, err := e.Search(context.Background(), []byte(chineseQuery))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.LessOrEqual(t, e.live.Load(), int64(1))
}

// TestDeadlineStopsLongCall: without WithInterruptibleCalls, a call whose
// deadline passes while the module runs is stopped at the module's next WASI
// call (it does not run to the end), returns the deadline's error soon after
// the deadline, and the pool replaces the instance. The long call is many
// searches on one instance inside one pool call, about a second of work.
func TestDeadlineStopsLongCall(t *testing.T) {
	e := openDWS(t, WithMaxInstances(1))
	want, err := e.Search(context.Background(), []byte(chineseQuery))
	require.NoError(t, err)
	created := e.created.Load()

	const searches = 4000
	const timed = 200
	start := time.Now()
	for range timed {
		_, err := e.Search(context.Background(), []byte(chineseQuery))
		require.NoError(t, err)
	}
	wholeCall := time.Since(start) * searches / timed

	type stop struct {
		done int
		err  error
	}
	stopped := make(chan stop, 1)
	const deadline = 30 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start = time.Now()
	_, err = e.run(ctx, "many searches", func(in *instance) ([]byte, error) {
		for i := range searches {
			if _, err := in.search(ctx, []byte(chineseQuery), 0); err != nil {
				stopped <- stop{i, err}
				return nil, err
			}
		}
		stopped <- stop{searches, nil}
		return nil, nil
	})
	returnedAfter := time.Since(start)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var exit *sys.ExitError
	require.ErrorAs(t, err, &exit, "the module ran to the end instead of stopping")
	require.Equal(t, sys.ExitCodeDeadlineExceeded, exit.ExitCode())
	require.Less(t, returnedAfter, wholeCall/4, "the error came late: the call would take about %v", wholeCall)
	s := <-stopped
	require.Less(t, s.done, searches)
	require.Zero(t, e.live.Load(), "the stopped instance was not discarded")

	got, err := e.Search(context.Background(), []byte(chineseQuery))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, created+1, e.created.Load(), "the pool replaced the stopped instance")
	t.Logf("a call of about %v with a %v deadline: stopped, error after %v (%d of %d searches done)",
		wholeCall.Round(time.Millisecond), deadline, returnedAfter.Round(time.Microsecond), s.done, searches)
}

// TestDeadlineStopsBuildSnapshot: building the DWS snapshot takes seconds;
// with a short deadline the error comes back at the deadline, long before
// that (the build runs on a goroutine the caller leaves; the module stops at
// its next WASI call).
func TestDeadlineStopsBuildSnapshot(t *testing.T) {
	// The module's first compile in a process takes seconds and does not
	// stop for the context (wazero's CompileModule runs to the end): done
	// first, so that the deadline falls in the build.
	_, err := ModuleVersion(context.Background())
	require.NoError(t, err)
	const deadline = 50 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	_, err = BuildSnapshot(ctx, "dws", fixtures.DWSCatalog)
	returnedAfter := time.Since(start)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	// The build takes about 3.4 s on the machine these figures come from.
	require.Less(t, returnedAfter, time.Second)
	// The build itself stops at its next WASI call, in the background (a
	// build left running would also slow the tests after this one).
	stopped := make(chan struct{})
	go func() { abandonedCalls.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the abandoned build still runs 10 s after its deadline")
	}
	t.Logf("BuildSnapshot with a %v deadline returned after %v, and the build stopped after %v", deadline,
		returnedAfter.Round(time.Microsecond), time.Since(start).Round(time.Microsecond))
}

// TestShortDeadlinesStillFillThePool: a caller whose deadline is shorter than
// opening a snapshot gives up, but the instance it started still joins the
// pool, so later calls are served instead of each starting (and abandoning)
// an open of its own.
func TestShortDeadlinesStillFillThePool(t *testing.T) {
	e := openDWS(t, WithMaxInstances(1))
	want, err := e.Search(context.Background(), []byte(chineseQuery))
	require.NoError(t, err)
	e.mu.Lock()
	// Closed as wazero closes a module whose call's context ended
	// (WithInterruptibleCalls): the pool must build a new instance.
	require.NoError(t, e.gen.idle[0].mod.Close(context.Background()))
	e.mu.Unlock()

	// The first caller starts the open and gives up at its deadline (an
	// open takes longer than 1 ms); later ones find the instance in the pool,
	// and a search may finish within 1 ms or not.
	// A later call that misses its deadline inside the module has its
	// instance replaced (its state is unknown), which a loaded machine makes
	// happen: each such miss may cost one more open, never the first one.
	missed := 0
	for i := range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		_, err := e.Search(ctx, []byte(chineseQuery))
		cancel()
		if i == 0 || err != nil {
			require.ErrorIs(t, err, context.DeadlineExceeded, "call %d", i)
		}
		if i > 0 && err != nil {
			missed++
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := e.Search(ctx, []byte(chineseQuery))
	require.NoError(t, err)
	require.Equal(t, want, got)
	created := e.created.Load()
	require.GreaterOrEqual(t, created, int64(2))
	require.LessOrEqual(t, created, int64(2+missed), "the open the first caller started served the callers after it (%d later calls missed their deadline)", missed)
	require.Equal(t, int64(1), e.live.Load())
}

// TestPoolWaitHonoursContext: with every instance busy, a call waits, and
// gives up when its context ends.
func TestPoolWaitHonoursContext(t *testing.T) {
	e := openDWS(t, WithMaxInstances(1))
	in, err := e.acquire(context.Background(), "test")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = e.Search(ctx, []byte(chineseQuery))
	require.ErrorIs(t, err, context.DeadlineExceeded)

	done := make(chan error, 1)
	go func() {
		_, err := e.Search(context.Background(), []byte(chineseQuery))
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("search ran while the only instance was busy: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	e.release(in, true)
	require.NoError(t, <-done)
	require.Equal(t, int64(1), e.created.Load())
}

// TestTrapDiscardsInstance: a trap (here: running out of memory under the
// limit) fails the call with an error, discards the instance, and the
// engine keeps serving.
func TestTrapDiscardsInstance(t *testing.T) {
	ctx := context.Background()
	e := openDWS(t, WithMaxInstances(1), WithMemoryLimit(96<<20))
	want, err := e.Search(ctx, []byte(chineseQuery))
	require.NoError(t, err)

	_, err = e.run(ctx, "test", func(in *instance) ([]byte, error) {
		_, err := in.call(ctx, fnAlloc, 200<<20) // more than the memory limit
		return nil, err
	})
	require.Error(t, err)
	var typed *wire.Error
	require.False(t, errors.As(err, &typed), "a trap is not a typed module answer: %v", err)
	t.Logf("trap: %v", err)
	require.Equal(t, int64(0), e.live.Load(), "the trapped instance must be discarded")

	got, err := e.Search(ctx, []byte(chineseQuery))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, int64(2), e.created.Load())

	// An instance closed behind the pool's back is dropped, not reused.
	e.mu.Lock()
	require.Len(t, e.gen.idle, 1)
	e.gen.idle[0].close()
	e.mu.Unlock()
	got, err = e.Search(ctx, []byte(chineseQuery))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, int64(3), e.created.Load())
}

func TestClose(t *testing.T) {
	ctx := context.Background()
	snap := snapshotDWS(t)
	runtime.GC()
	goroutines := runtime.NumGoroutine()

	e, err := Open(ctx, snap, WithMaxInstances(2))
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 10 {
				if _, err := e.Search(ctx, []byte(chineseQuery)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	info := e.Info()
	require.NoError(t, e.Close(ctx))
	require.NoError(t, e.Close(ctx))
	require.Equal(t, int64(0), e.live.Load())
	_, err = e.Search(ctx, []byte(chineseQuery))
	require.ErrorIs(t, err, ErrClosed)
	require.ErrorIs(t, e.Swap(ctx, snap), ErrClosed)
	require.Equal(t, info, e.Info())

	// A call in flight when Close runs is terminated.
	e, err = Open(ctx, snap, WithMaxInstances(1))
	require.NoError(t, err)
	started := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		_, err := e.run(ctx, "test", func(in *instance) ([]byte, error) {
			close(started)
			for { // keep the instance busy until Close kills it
				if _, err := in.search(ctx, []byte(workflowQuery), 0); err != nil {
					return nil, err
				}
			}
		})
		result <- err
	}()
	<-started
	require.NoError(t, e.Close(ctx))
	require.ErrorIs(t, <-result, ErrClosed)

	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), goroutines, "goroutines leaked")
}

// TestWASICallGaps: by default a call past its deadline is stopped at the
// module's next WASI call (stopAtHostCall), so the module must make such
// calls while it works. This measures the longest stretch without one (from
// the start of a stage to its end) while opening the DWS snapshot, during
// runs of searches and while building the snapshot, and fails if a stage
// makes none.
func TestWASICallGaps(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var calls int
	var last time.Time
	var longest time.Duration
	observe := func(string) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		longest = max(longest, now.Sub(last))
		last = now
		calls++
	}
	stage := func(name string, work func() error) {
		mu.Lock()
		calls, longest, last = 0, 0, time.Now()
		mu.Unlock()
		start := time.Now()
		require.NoError(t, work())
		mu.Lock()
		longest = max(longest, time.Since(last))
		n, gap := calls, longest
		mu.Unlock()
		t.Logf("%s (%v): %d WASI calls, longest stretch without one %v",
			name, time.Since(start).Round(time.Millisecond), n, gap.Round(10*time.Microsecond))
		require.NotZero(t, n, "%s makes no WASI call: a deadline could not stop it", name)
	}

	mr, err := newModuleRuntime(ctx, newConfig([]Option{withWASICallObserver(observe)}))
	require.NoError(t, err)
	defer mr.close(ctx)
	snap := snapshotDWS(t)
	g := &generation{size: len(snap)}
	var in *instance
	stage("instantiate", func() (err error) {
		in, err = mr.instantiate(ctx)
		return err
	})
	stage("open the DWS snapshot", func() error { return in.open(ctx, g, snap) })
	for _, q := range []struct{ name, request string }{{"Chinese query", chineseQuery}, {"workflow", workflowQuery}} {
		stage("200 searches, "+q.name, func() error {
			for range 200 {
				if _, err := in.search(ctx, []byte(q.request), 0); err != nil {
					return err
				}
			}
			return nil
		})
	}
	builder, err := mr.instantiate(ctx)
	require.NoError(t, err)
	stage("build the DWS snapshot", func() error {
		_, err := builder.buildSnapshot(ctx, "dws", fixtures.DWSCatalog)
		return err
	})
}

// TestBuildSnapshotTooLargeForTheMemoryLimit: a build that outgrows the
// instance's memory is the typed catalog_too_large naming the limit, not a
// raw trap (issue 17: 15,000 MCP tools under the default limit trapped).
func TestBuildSnapshotTooLargeForTheMemoryLimit(t *testing.T) {
	_, err := BuildSnapshot(context.Background(), "dws", fixtures.DWSCatalog, WithMemoryLimit(48<<20))
	var typed *wire.Error
	require.ErrorAs(t, err, &typed)
	require.Equal(t, "catalog_too_large", typed.Reason)
	require.Equal(t, 3, typed.Code)
	require.Contains(t, typed.Message, "memory limit of 48 MiB")
}
