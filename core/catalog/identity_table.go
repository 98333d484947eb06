package catalog

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/tinylib/msgp/msgp"

	"github.com/toolsift/toolsift/core/internal/strcmp"
	"github.com/toolsift/toolsift/core/internal/zerocopy"
)

// An IdentityIndex answers from sorted key tables, one per kind of name, and
// a snapshot stores those tables as they are: opening one then builds no
// map. At 100,000 tools the maps were most of what an engine did when it
// opened (natively 98–126 ms of 142–177 ms, the bare names alone 59–69 ms;
// in a Node CPU profile of the module a quarter of the open), for lookups
// that a search makes at most a handful of times.

// keyTable is a sorted list of distinct keys, each with the tool position it
// names: keys concatenated, each key's end offset, each key's position.
type keyTable struct {
	keys string
	ends []uint32
	docs []uint32
}

// newKeyTable sorts the entries of a map into a table.
func newKeyTable(byKey map[string]int) keyTable {
	keys := make([]string, 0, len(byKey))
	size := 0
	for key := range byKey {
		keys = append(keys, key)
		size += len(key)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.Grow(size)
	t := keyTable{ends: make([]uint32, len(keys)), docs: make([]uint32, len(keys))}
	for i, key := range keys {
		b.WriteString(key)
		t.ends[i] = uint32(b.Len())
		t.docs[i] = uint32(byKey[key])
	}
	t.keys = b.String()
	return t
}

func (t *keyTable) len() int { return len(t.docs) }

func (t *keyTable) key(i int) string {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.keys[start:t.ends[i]]
}

// find returns the position key names, by binary search.
func (t *keyTable) find(key string) (int, bool) {
	lo, hi := 0, t.len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if t.key(mid) < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < t.len() && t.key(lo) == key {
		return int(t.docs[lo]), true
	}
	return 0, false
}

// validate checks what find relies on, for a table read from a snapshot:
// offsets within the keys and in order, keys strictly ascending (so that no
// key names two tools), positions below tools. It notes each key in x.
func (t *keyTable) validate(kind string, tools int, x *IdentityIndex) error {
	if len(t.ends) != len(t.docs) {
		return fmt.Errorf("identity table %s: %d keys but %d positions", kind, len(t.ends), len(t.docs))
	}
	prev, start := "", uint32(0)
	for i, end := range t.ends {
		if end < start || end > uint32(len(t.keys)) || (i == len(t.ends)-1 && end != uint32(len(t.keys))) {
			return fmt.Errorf("identity table %s: key %d ends outside the keys", kind, i)
		}
		key := t.keys[start:end]
		if key == "" || (i > 0 && strcmp.Compare(key, prev) <= 0) {
			return fmt.Errorf("identity table %s: key %d is empty or out of order", kind, i)
		}
		if t.docs[i] >= uint32(tools) {
			return fmt.Errorf("identity table %s: key %d names tool %d of %d", kind, i, t.docs[i], tools)
		}
		x.noteKey(key)
		prev, start = key, end
	}
	if len(t.ends) == 0 && t.keys != "" {
		return fmt.Errorf("identity table %s: keys without offsets", kind)
	}
	return nil
}

// IdentityTable is an IdentityIndex as a snapshot stores it (see
// IdentityIndex.Table and LoadIdentityIndex). Its zero value is no table: an
// engine then builds the index from the tools.
type IdentityTable struct {
	tables [numIdentityKinds]keyTable
	stored bool
}

// The kinds of name, in the order Resolve tries them and a snapshot stores
// them.
const (
	byCanonical = iota
	byToolPath
	byCLIPath
	byName
	numIdentityKinds
)

var identityKindNames = [numIdentityKinds]string{"canonical", "tool_path", "cli_path", "name"}

// Stored reports whether the table holds an index (it was built, or read
// from a snapshot that has one).
func (t *IdentityTable) Stored() bool { return t.stored }

// MarshalMsg appends the table: an array of four [keys, ends, positions]
// arrays, the offsets and positions as little-endian u32 byte strings. A
// table that is not Stored is written as nil.
func (t *IdentityTable) MarshalMsg(b []byte) ([]byte, error) {
	if !t.stored {
		return msgp.AppendNil(b), nil
	}
	b = msgp.AppendArrayHeader(b, numIdentityKinds)
	for k := range t.tables {
		kt := &t.tables[k]
		b = msgp.AppendArrayHeader(b, 3)
		b = msgp.AppendString(b, kt.keys)
		b = appendU32s(b, kt.ends)
		b = appendU32s(b, kt.docs)
	}
	return b, nil
}

func appendU32s(b []byte, values []uint32) []byte {
	b = msgp.AppendBytesHeader(b, uint32(4*len(values)))
	for _, v := range values {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// UnmarshalMsg reads a table as views into b (see readStringView): b must
// stay alive and unchanged while the table is used. It checks the shape
// only; LoadIdentityIndex checks the content.
func (t *IdentityTable) UnmarshalMsg(b []byte) ([]byte, error) {
	*t = IdentityTable{}
	if msgp.IsNil(b) {
		return b[1:], nil
	}
	n, b, err := msgp.ReadArrayHeaderBytes(b)
	if err != nil {
		return b, err
	}
	if n != numIdentityKinds {
		return b, fmt.Errorf("identity table: %d kinds of name, want %d", n, numIdentityKinds)
	}
	for k := range t.tables {
		kt := &t.tables[k]
		if n, b, err = msgp.ReadArrayHeaderBytes(b); err != nil {
			return b, err
		}
		if n != 3 {
			return b, fmt.Errorf("identity table %s: %d parts, want 3", identityKindNames[k], n)
		}
		if kt.keys, b, err = readStringView(b); err != nil {
			return b, err
		}
		if kt.ends, b, err = readU32s(b); err != nil {
			return b, err
		}
		if kt.docs, b, err = readU32s(b); err != nil {
			return b, err
		}
	}
	t.stored = true
	return b, nil
}

func readU32s(b []byte) ([]uint32, []byte, error) {
	raw, rest, err := msgp.ReadBytesZC(b)
	if err != nil {
		return nil, b, err
	}
	if len(raw)%4 != 0 {
		return nil, b, fmt.Errorf("identity table: a u32 table of %d bytes", len(raw))
	}
	return zerocopy.Uint32s(raw), rest, nil
}

// Msgsize bounds the size of the table's encoding.
func (t *IdentityTable) Msgsize() int {
	size := msgp.NilSize + msgp.ArrayHeaderSize
	for k := range t.tables {
		kt := &t.tables[k]
		size += msgp.ArrayHeaderSize + msgp.StringPrefixSize + len(kt.keys) + 2*msgp.BytesPrefixSize + 4*len(kt.ends) + 4*len(kt.docs)
	}
	return size
}

// Table returns the index's tables, for a snapshot to store.
func (x *IdentityIndex) Table() IdentityTable {
	return IdentityTable{tables: x.tables, stored: true}
}

// LoadIdentityIndex is the index of a stored table over tools, the list it
// was built from (canonical order). It checks every table (see
// keyTable.validate), that the canonical paths are exactly the tools' own
// (so no two tools share one), and refuses bare names unless bareNames is
// set. The other refusals NewIdentityIndex makes (a path naming two tools)
// were made when the table was built, and a key naming one tool is all a
// lookup relies on.
func LoadIdentityIndex(t *IdentityTable, tools []*Tool, bareNames bool) (*IdentityIndex, error) {
	if !t.stored {
		return nil, fmt.Errorf("no identity table")
	}
	if !bareNames && t.tables[byName].len() > 0 {
		return nil, fmt.Errorf("identity table resolves bare names, which the profile does not")
	}
	x := &IdentityIndex{tables: t.tables}
	for k := range x.tables {
		if err := x.tables[k].validate(identityKindNames[k], len(tools), x); err != nil {
			return nil, err
		}
	}
	canonical := &x.tables[byCanonical]
	if canonical.len() != len(tools) {
		return nil, fmt.Errorf("identity table names %d canonical paths for %d tools", canonical.len(), len(tools))
	}
	for i := range canonical.len() {
		if !strcmp.Equal(canonical.key(i), tools[canonical.docs[i]].Identity.CanonicalPath) {
			return nil, fmt.Errorf("identity table: canonical path %d is not its tool's", i)
		}
	}
	return x, nil
}
