package catalog

import (
	"unsafe"

	"github.com/toolsift/toolsift/core/internal/zerocopy"
)

// readStringView reads a MessagePack string as a view into b instead of a
// copy. The generated decoders call it (go:generate rewrites msgp's
// ReadStringBytes to it), so decoding a catalog allocates no string: a
// snapshot holds tens of thousands of them, and allocating each was most of
// what opening a snapshot cost in WebAssembly.
//
// The caller must keep b alive and unchanged for as long as the decoded
// catalog is used: core/snapshot decodes from a private copy of the body, or
// from one handed over for good.
//
// A catalog's strings are nearly all fixstr or str8 (under 256 bytes): those
// are read here, without the call through msgp.ReadStringZC, and everything
// else (longer strings, and every error) goes the general way. At 100,000
// tools that is about 6 million strings per open.
func readStringView(b []byte) (string, []byte, error) {
	if len(b) > 0 {
		lead, size, at := b[0], 0, 1
		switch {
		case lead&0xe0 == 0xa0: // fixstr
			size = int(lead & 0x1f)
		case lead == 0xd9 && len(b) > 1: // str8
			size, at = int(b[1]), 2
		default:
			return zerocopy.String(b)
		}
		if len(b)-at >= size {
			if size == 0 {
				return "", b[at:], nil
			}
			return unsafe.String(&b[at], size), b[at+size:], nil
		}
	}
	return zerocopy.String(b)
}
