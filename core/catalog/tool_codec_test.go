package catalog_test

import (
	"bytes"
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

// A decoded tool keeps its parameters encoded until Params asks: they come
// back as they were, once for every caller, and re-encode to the same
// bytes; a tool whose stored parameters do not decode is refused when the
// tool is decoded, not when they are first read.
func TestStoredParametersDecodeOnFirstUse(t *testing.T) {
	tool := sampleTool()
	tool.Parameters = []catalog.Parameter{
		{Name: "city", Type: "string", Description: "City name", Required: true, Enum: []string{"a", "b"}},
		{Name: "units", Type: "string", Default: catalog.RawJSON(`"metric"`)},
	}
	b, err := tool.MarshalMsg(nil)
	require.NoError(t, err)

	var back catalog.Tool
	rest, err := back.UnmarshalMsg(b)
	require.NoError(t, err)
	require.Empty(t, rest)
	require.Nil(t, back.Parameters, "not decoded yet")
	require.LessOrEqual(t, len(b), back.Msgsize())
	again, err := back.MarshalMsg(nil)
	require.NoError(t, err)
	require.Equal(t, b, again, "re-encoded before and after a first use, the same bytes")

	results := make(chan []catalog.Parameter, 8)
	for range cap(results) {
		go func() { results <- back.Params() }()
	}
	for range cap(results) {
		got := <-results
		require.Equal(t, tool.Parameters, got)
		require.Same(t, &got[0], &back.Params()[0], "decoded once, shared")
	}
	require.Equal(t, tool, back.Plain())

	empty := sampleTool()
	b, err = empty.MarshalMsg(nil)
	require.NoError(t, err)
	_, err = back.UnmarshalMsg(b)
	require.NoError(t, err)
	require.Nil(t, back.Params(), "no parameters: nil, as the generated decoders give")

	// The first parameter's name (after the tuple header of the list's one
	// element) replaced by an integer: still well-formed MessagePack, so
	// only a typed decode finds it.
	bad := sampleTool()
	bad.Parameters = []catalog.Parameter{{Name: "zzzz"}}
	b, err = bad.MarshalMsg(nil)
	require.NoError(t, err)
	at := bytes.Index(b, []byte("\xa4zzzz"))
	require.Positive(t, at)
	corrupt := append(append(append([]byte{}, b[:at]...), 0xce, 0, 0, 0, 7), b[at+5:]...)
	_, err = back.UnmarshalMsg(corrupt)
	require.ErrorContains(t, err, "Parameters")
}

// Extra text or a deprecated mark makes a tool of 17 elements (the original
// then stored as nil when absent); each reads back as it was, and a tool
// with neither keeps the bytes it had before they existed.
func TestToolExtraAndDeprecatedAreStoredOnlyWhenPresent(t *testing.T) {
	plain := sampleTool()
	plainBytes, err := plain.MarshalMsg(nil)
	require.NoError(t, err)

	for _, tc := range []struct {
		name string
		edit func(*catalog.Tool)
	}{
		{"extra", func(tool *catalog.Tool) { tool.Extra = "returns the temperature in celsius" }},
		{"deprecated", func(tool *catalog.Tool) { tool.Deprecated = true }},
		{"both with an original", func(tool *catalog.Tool) {
			tool.Extra, tool.Deprecated = "weather forecast", true
			tool.Original = catalog.RawJSON(`{"name":"get_weather"}`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := sampleTool()
			tc.edit(&tool)
			b, err := tool.MarshalMsg([]byte("prefix"))
			require.NoError(t, err)
			require.Equal(t, "prefix", string(b[:6]))
			require.LessOrEqual(t, len(b)-6, tool.Msgsize())
			n, _, err := msgp.ReadArrayHeaderBytes(b[6:])
			require.NoError(t, err)
			require.EqualValues(t, 17, n)

			var back catalog.Tool
			rest, err := back.UnmarshalMsg(b[6:])
			require.NoError(t, err)
			require.Empty(t, rest)
			require.Equal(t, tool.Extra, back.Extra)
			require.Equal(t, tool.Deprecated, back.Deprecated)
			require.Equal(t, string(tool.Original), string(back.Original))
			require.Equal(t, tool.Description, back.Description)

			again, err := back.MarshalMsg(nil)
			require.NoError(t, err)
			require.Equal(t, b[6:], again, "a decoded tool re-encodes to the same bytes")
		})
	}

	var back catalog.Tool
	_, err = back.UnmarshalMsg(plainBytes)
	require.NoError(t, err)
	require.Empty(t, back.Extra)
	require.False(t, back.Deprecated)
}
