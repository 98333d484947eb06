package catalog

import (
	"unsafe"

	"github.com/tinylib/msgp/msgp"
)

// readStringView reads a MessagePack string as a view into b instead of a
// copy. The generated decoders call it (go:generate rewrites msgp's
// ReadStringBytes to it), so decoding a catalog allocates no string: a
// snapshot holds tens of thousands of them, and allocating each was most of
// what opening a snapshot cost in WebAssembly.
//
// The caller must keep b alive and unchanged for as long as the decoded
// catalog is used: core/snapshot decodes from a private copy of the body that
// nothing writes to again.
func readStringView(b []byte) (string, []byte, error) {
	v, rest, err := msgp.ReadStringZC(b)
	if err != nil || len(v) == 0 {
		return "", rest, err
	}
	return unsafe.String(unsafe.SliceData(v), len(v)), rest, nil
}
