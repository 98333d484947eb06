package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tinylib/msgp/msgp"

	"github.com/toolsift/toolsift/core/catalog"
)

func sampleTool() catalog.Tool {
	return catalog.Tool{
		Identity:    catalog.Identity{CanonicalPath: "tools.get_weather", Path: "tools.get_weather", Name: "get_weather", ProductID: "tools"},
		Description: "Weather for a city.",
		InputSchema: catalog.RawJSON(`{"type":"object"}`),
	}
}

// A tool without an original definition is the 14-element array snapshots
// stored before the field existed (their bytes must not change); one with
// it has a 15th element, and both read back as they were.
func TestToolOriginalIsStoredOnlyWhenPresent(t *testing.T) {
	plain := sampleTool()
	withEmpty := sampleTool()
	withEmpty.Original = catalog.RawJSON{}
	withOriginal := sampleTool()
	withOriginal.Original = catalog.RawJSON(`{"name":"get_weather","type":"function"}`)

	plainBytes, err := plain.MarshalMsg(nil)
	require.NoError(t, err)
	emptyBytes, err := withEmpty.MarshalMsg(nil)
	require.NoError(t, err)
	require.Equal(t, plainBytes, emptyBytes, "an empty original is stored as no original")
	n, _, err := msgp.ReadArrayHeaderBytes(plainBytes)
	require.NoError(t, err)
	require.EqualValues(t, 14, n)

	fullBytes, err := withOriginal.MarshalMsg([]byte("prefix"))
	require.NoError(t, err)
	require.Equal(t, "prefix", string(fullBytes[:6]))
	n, _, err = msgp.ReadArrayHeaderBytes(fullBytes[6:])
	require.NoError(t, err)
	require.EqualValues(t, 15, n)
	require.LessOrEqual(t, len(fullBytes)-6, withOriginal.Msgsize())

	var back catalog.Tool
	back.Original = catalog.RawJSON("stale")
	rest, err := back.UnmarshalMsg(plainBytes)
	require.NoError(t, err)
	require.Empty(t, rest)
	require.Nil(t, back.Original, "a 14-element tool has no original")
	require.Equal(t, plain.Identity.CanonicalPath, back.Identity.CanonicalPath)

	rest, err = back.UnmarshalMsg(fullBytes[6:])
	require.NoError(t, err)
	require.Empty(t, rest)
	require.Equal(t, string(withOriginal.Original), string(back.Original))
}

// Any other length is refused before a field is read.
func TestToolOfAnotherLengthIsRefused(t *testing.T) {
	tool := sampleTool()
	b, err := tool.MarshalMsg(nil)
	require.NoError(t, err)
	for _, header := range []byte{0x90 | 13, 0x90 | 16, 0x90} {
		bad := append([]byte{header}, b[1:]...)
		var back catalog.Tool
		_, err := back.UnmarshalMsg(bad)
		require.Error(t, err, "header %#x", header)
	}
}
