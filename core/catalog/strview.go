package catalog

import "github.com/toolsift/toolsift/core/internal/zerocopy"

// readStringView reads a MessagePack string as a view into b instead of a
// copy. The generated decoders call it (go:generate rewrites msgp's
// ReadStringBytes to it), so decoding a catalog allocates no string: a
// snapshot holds tens of thousands of them, and allocating each was most of
// what opening a snapshot cost in WebAssembly.
//
// The caller must keep b alive and unchanged for as long as the decoded
// catalog is used: core/snapshot decodes from a private copy of the body, or
// from one handed over for good.
func readStringView(b []byte) (string, []byte, error) { return zerocopy.String(b) }
