package wasm_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/internal/fixtures"
)

// TestMemoryStaysBoundedWhileServing opens the DWS snapshot in a fresh
// instance (at most 64 MiB of linear memory after the open), then serves
// thousands of searches: linear memory, which never shrinks, must stay within
// what ABI.md tells hosts to allow.
func TestMemoryStaysBoundedWhileServing(t *testing.T) {
	a := newABI(t)
	sp, sn := a.in(fixtures.DWSSnapshot)
	start := time.Now()
	status, handle := a.result(a.call("toolsift_open", sp, sn))
	require.Equal(t, byte(0), status)
	opened := a.mod.Memory().Size()
	t.Logf("open: %v, linear memory %d MiB", time.Since(start), opened>>20)
	require.LessOrEqual(t, opened, uint32(64<<20))
	h := uint64(binary.LittleEndian.Uint32(handle))
	queries := []string{"给群里发文件并确认消息已读", "查询", "AI表格 新增记录", "下载钉盘文件", "创建一场新的会议日程"}
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		rp, rn := a.in([]byte(`{"version":"tool-search.v1","query":"` + queries[i%len(queries)] + `","limit":20,"candidate_limit":100}`))
		status, _ := a.result(a.call("toolsift_search", h, rp, rn, 0))
		require.Equal(t, byte(0), status)
		a.call("toolsift_free", rp)
	}
	t.Logf("after %d searches: linear memory %d MiB", n, a.mod.Memory().Size()>>20)
	// ABI.md promises that 128 MiB is enough for an instance that serves.
	require.LessOrEqual(t, a.mod.Memory().Size(), uint32(128<<20))
}
