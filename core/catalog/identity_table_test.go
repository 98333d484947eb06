package catalog_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tinylib/msgp/msgp"

	"github.com/toolsift/toolsift/core/catalog"
)

// identityFixture is a small catalog with every kind of name: canonical
// paths, a source-product tool path, CLI paths with aliases and spacing, a
// non-ASCII alias, bare names (one ambiguous).
func identityFixture() []*catalog.Tool {
	tools := []*catalog.Tool{
		tool("chat.send", "chat message send", "chat deliver", " dws chat  post "),
		tool("doc.read", "doc read"),
		tool("doc.search", "doc search"),
		tool("wiki.search", "wiki search", "知识库 搜索"),
	}
	tools[1].Identity.SourceProductID, tools[1].Identity.Name = "legacy", "read"
	tools[2].Identity.Name = "search"
	tools[3].Identity.Name = "search"
	tools[0].Identity.Name = "send"
	return tools
}

// every name the fixture's index resolves, and some it must not.
var identityQueries = []string{
	"chat.send", " chat.send ", "chat message send", "dws chat message send", "chat/message/send", "chat.message.send",
	"chat deliver", "chat post", "doc.read", "legacy.read", "read", "doc read", "doc.search", "wiki.search",
	"知识库 搜索", "dws 知识库 搜索", "send", "search", "Chat.Send", "chat", "", "doc", "wiki search extra",
}

// encodeTable stores an index's table the way a snapshot does.
func encodeTable(t *testing.T, x *catalog.IdentityIndex) []byte {
	t.Helper()
	table := x.Table()
	b, err := table.MarshalMsg(nil)
	require.NoError(t, err)
	require.LessOrEqual(t, len(b), table.Msgsize())
	return b
}

func decodeTable(t *testing.T, b []byte) catalog.IdentityTable {
	t.Helper()
	var table catalog.IdentityTable
	rest, err := table.UnmarshalMsg(b)
	require.NoError(t, err)
	require.Empty(t, rest)
	return table
}

// A stored table answers every lookup as the index it was made from.
func TestIdentityTableRoundTrips(t *testing.T) {
	for _, bare := range []bool{false, true} {
		tools := identityFixture()
		built, err := catalog.NewIdentityIndex(tools)
		require.NoError(t, err)
		if bare {
			built.IndexBareNames(tools)
		}
		table := decodeTable(t, encodeTable(t, built))
		require.True(t, table.Stored())
		loaded, err := catalog.LoadIdentityIndex(&table, tools, bare)
		require.NoError(t, err)
		for _, q := range identityQueries {
			wantPos, wantOK := built.ResolveQuery(q)
			gotPos, gotOK := loaded.ResolveQuery(q)
			require.Equal(t, wantOK, gotOK, "bare %v, %q", bare, q)
			require.Equal(t, wantPos, gotPos, "bare %v, %q", bare, q)
			wantPos, wantOK = built.Resolve(q)
			gotPos, gotOK = loaded.Resolve(q)
			require.Equal(t, wantOK, gotOK, "bare %v, %q", bare, q)
			require.Equal(t, wantPos, gotPos, "bare %v, %q", bare, q)
		}
		pos, ok := loaded.ResolveQuery("dws 知识库 搜索")
		require.True(t, ok, "a non-ASCII key is noted when the table is loaded")
		require.Equal(t, 3, pos)
		_, ok = loaded.Resolve("search")
		require.False(t, ok, "an ambiguous bare name resolves to nothing")
		pos, ok = loaded.Resolve("send")
		require.Equal(t, bare, ok)
		require.Equal(t, 0, pos)
	}
}

// A table that is not stored encodes as nil and decodes as not stored: the
// engine then builds the index.
func TestIdentityTableAbsent(t *testing.T) {
	var none catalog.IdentityTable
	b, err := none.MarshalMsg(nil)
	require.NoError(t, err)
	require.Equal(t, []byte{0xc0}, b)
	table := decodeTable(t, b)
	require.False(t, table.Stored())
	_, err = catalog.LoadIdentityIndex(&table, identityFixture()[:3], false)
	require.Error(t, err)
}

// Tables read from a snapshot are checked before they are used: keys out of
// order or repeated (one name, two tools), positions past the tools, offsets
// outside the keys, the wrong shape. Each is refused, never a wrong lookup
// or a panic.
func TestIdentityTableRefusesDamage(t *testing.T) {
	tools := identityFixture()
	built, err := catalog.NewIdentityIndex(tools)
	require.NoError(t, err)
	built.IndexBareNames(tools)
	good := encodeTable(t, built)
	table := decodeTable(t, good)
	_, err = catalog.LoadIdentityIndex(&table, tools, true)
	require.NoError(t, err)

	// kinds rebuilds an encoding from per-kind parts: keys, ends, positions.
	type part struct {
		keys       string
		ends, docs []uint32
	}
	u32s := func(values []uint32) []byte {
		var b []byte
		for _, v := range values {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		return b
	}
	encode := func(parts []part) []byte {
		b := msgp.AppendArrayHeader(nil, uint32(len(parts)))
		for _, p := range parts {
			b = msgp.AppendArrayHeader(b, 3)
			b = msgp.AppendString(b, p.keys)
			b = msgp.AppendBytes(b, u32s(p.ends))
			b = msgp.AppendBytes(b, u32s(p.docs))
		}
		return b
	}
	valid := []part{{"a.xb.y", []uint32{3, 6}, []uint32{0, 1}}, {}, {"a xb y", []uint32{3, 6}, []uint32{0, 1}}, {}}
	two := []*catalog.Tool{tool("a.x", "a x"), tool("b.y", "b y")}
	table = decodeTable(t, encode(valid))
	_, err = catalog.LoadIdentityIndex(&table, two, false)
	require.NoError(t, err, "the hand-made table is valid")

	with := func(kind int, p part) []part {
		parts := append([]part(nil), valid...)
		parts[kind] = p
		return parts
	}
	for name, tc := range map[string]struct {
		parts     []part
		tools     int
		bareNames bool
	}{
		"keys out of order":              {with(0, part{"b.ya.x", []uint32{3, 6}, []uint32{0, 1}}), 2, false},
		"a key twice":                    {with(2, part{"a xa x", []uint32{3, 6}, []uint32{0, 1}}), 2, false},
		"an empty key":                   {with(2, part{"a x", []uint32{0, 3}, []uint32{0, 1}}), 2, false},
		"a position past the tools":      {with(2, part{"a xb y", []uint32{3, 6}, []uint32{0, 2}}), 2, false},
		"an offset past the keys":        {with(2, part{"a xb y", []uint32{3, 7}, []uint32{0, 1}}), 2, false},
		"offsets short of the keys":      {with(2, part{"a xb yz", []uint32{3, 6}, []uint32{0, 1}}), 2, false},
		"offsets going back":             {with(2, part{"a xb y", []uint32{3, 2}, []uint32{0, 1}}), 2, false},
		"keys without positions":         {with(2, part{"a xb y", []uint32{3, 6}, []uint32{0}}), 2, false},
		"keys without offsets":           {with(1, part{"a.z", nil, nil}), 2, false},
		"canonical paths missing":        {with(0, part{"a.x", []uint32{3}, []uint32{0}}), 2, false},
		"bare names the profile has not": {with(3, part{"x", []uint32{1}, []uint32{0}}), 2, false},
	} {
		table := decodeTable(t, encode(tc.parts))
		_, err := catalog.LoadIdentityIndex(&table, two[:tc.tools], tc.bareNames)
		require.Error(t, err, name)
	}

	oddTable := msgp.AppendArrayHeader(msgp.AppendArrayHeader(nil, 4), 3)
	oddTable = msgp.AppendString(oddTable, "a")
	oddTable = msgp.AppendBytes(oddTable, []byte{1, 0, 0, 0, 0})
	for name, b := range map[string][]byte{
		"three kinds":            encode(valid[:3]),
		"a kind of two parts":    append(msgp.AppendArrayHeader(msgp.AppendArrayHeader(nil, 4), 2), 0xa0, 0xc4, 0),
		"a u32 table of 5 bytes": oddTable,
		"truncated":              good[:len(good)/2],
	} {
		var table catalog.IdentityTable
		_, err := table.UnmarshalMsg(b)
		require.Error(t, err, name)
	}
}

// A table's bytes are the same for the same tools, whatever order the maps
// it was built from were filled in.
func TestIdentityTableIsDeterministic(t *testing.T) {
	var first []byte
	for i := range 20 {
		tools := identityFixture()
		built, err := catalog.NewIdentityIndex(tools)
		require.NoError(t, err)
		built.IndexBareNames(tools)
		b := encodeTable(t, built)
		if i == 0 {
			first = b
			continue
		}
		require.True(t, bytes.Equal(first, b), fmt.Sprintf("build %d differs", i))
	}
}
