// Package snapshot is the file format of one catalog generation: the
// header, the checksum and the body's codec. The body holds everything
// search and Inspect need, including the prebuilt inverted index, so that
// opening a snapshot never re-tokenizes the catalog. Building a snapshot
// from a catalog and opening one into an engine are core/compile's: this
// package reads and writes bytes and knows no engine, importer or profile.
//
// Layout (all integers little-endian):
//
//	offset  size  field
//	0       8     magic "TSIFTSNP"
//	8       4     format version (FormatVersion)
//	12      4     zero (reserved)
//	16      8     body length
//	24      8     XXH64 of the body, seed 0 (see xxh64.go)
//	32      …     body: MessagePack, written and read by tinylib/msgp
//	              generated code (no reflection)
//
// The same catalog and profile always give the same bytes: every type in the
// body holds sorted slices, never maps. Decoding fails closed: a wrong magic,
// an unknown version, a checksum mismatch or a malformed body is a typed
// error, never a partial body.
package snapshot

//go:generate go run github.com/tinylib/msgp@v1.6.5 -io=false -tests=false
//msgp:tuple Body

import (
	"encoding/binary"
	"fmt"

	"github.com/tinylib/msgp/msgp"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/internal/index"
	"github.com/toolsift/toolsift/core/wire"
)

// FormatVersion is the snapshot layout this package writes and reads.
// Version 1 had a 24-byte header with a CRC-32C of the body; version 2 has
// the XXH64 of the body, which WebAssembly computes seven times faster.
// Version 3 pads the index's u32 tables to aligned offsets (see core/internal/index),
// so that they are read in place; a version 2 reader refuses its padding.
// Version 4 adds the tools' keywords to the catalog and the import report
// to the body. Version 5 adds a BM25F index's precomputed impacts (the
// longest terms' postings merged over the fields, see core/internal/index). Version 6
// adds the identity index's sorted tables (see core/catalog), so that
// opening builds no map of names.
const FormatVersion = 6

const (
	magic      = "TSIFTSNP"
	headerSize = 32
)

// MaxBytes is the largest snapshot, header included: what every host's
// command line reads and what Decode opens. Encode refuses to write a larger
// one (snapshot_too_large, naming the limit) rather than leave a file no
// host will read: a snapshot is about 9.5 times its catalog (100,000 MCP
// tools made 1.09 GB).
const MaxBytes = 1 << 30

// maxBytes is MaxBytes, lowered by tests (export_test.go) that build a
// snapshot over the limit without building a gigabyte.
var maxBytes = MaxBytes

func tooLarge(size int) *wire.Error {
	return wire.Validation("snapshot_too_large", fmt.Sprintf(
		"the snapshot is %d bytes, over the limit of %d bytes every host reads; split the catalog (for example by product or server) into snapshots under the limit",
		size, maxBytes))
}

// Body is the MessagePack body of a snapshot.
type Body struct {
	Profile string          `msg:"profile"`
	Catalog catalog.Catalog `msg:"catalog"`
	// Index is the catalog's inverted index (its type is internal to core:
	// core/compile hands it to the engine).
	Index index.Index `msg:"index"`
	// Report is what the import read and left out, encoded by
	// importer.Report's own MessagePack codec (compile.Report decodes it): a
	// section of its own, which this format keeps as it is and checks only
	// for being one MessagePack value, so that the format depends on no
	// importer. Empty when the snapshot was built without one (by the
	// module, or from a catalog in memory); it is then stored as nil, the
	// bytes a nil *importer.Report had.
	Report msgp.Raw `msg:"report"`
	// Identity is the engine's identity index, stored so that opening
	// builds none (catalog.IdentityTable).
	Identity catalog.IdentityTable `msg:"identity"`
}

// Encode writes the snapshot of body: header, body, checksum. It refuses a
// snapshot over MaxBytes (snapshot_too_large).
func Encode(body *Body) ([]byte, error) {
	// Msgsize is an estimate (neither bound: the index's tables encode
	// larger), so the size is checked on the encoded bytes.
	out := make([]byte, headerSize, headerSize+min(body.Msgsize(), maxBytes))
	out, err := body.MarshalMsg(out)
	if err != nil {
		return nil, fmt.Errorf("encode snapshot: %w", err)
	}
	if len(out) > maxBytes {
		return nil, tooLarge(len(out))
	}
	seal(out)
	return out, nil
}

// seal writes the header for the body in out[headerSize:].
func seal(out []byte) {
	copy(out, magic)
	binary.LittleEndian.PutUint32(out[8:], FormatVersion)
	binary.LittleEndian.PutUint32(out[12:], 0)
	binary.LittleEndian.PutUint64(out[16:], uint64(len(out)-headerSize))
	binary.LittleEndian.PutUint64(out[24:], xxh64(out[headerSize:]))
}

// DecodeOption adjusts Decode.
type DecodeOption func(*decodeOptions)

type decodeOptions struct {
	owned bool
	then  []func(*Body) error
}

// Owned makes Decode skip its private copy of data: the decoded strings
// are views into data itself, so the caller hands data over and must never
// write to it again. It saves a snapshot's size in memory while the body is
// alive, which decides whether a large catalog fits a WebAssembly
// instance's limit.
func Owned() DecodeOption { return func(o *decodeOptions) { o.owned = true } }

// Then makes Decode run f on the decoded body before it returns, while the
// body's checksum is still being computed alongside (with more than one
// processor): opening builds the engine there, so that the checksum costs
// no time of its own. f sees a body whose checksum may yet fail; if it
// does, Decode returns the checksum's error whatever f returned, so that a
// damaged snapshot always gives the same error. Else f's error, as a
// *wire.Error (wire.ErrorOf), is Decode's. Given more than once, each f
// runs in order until one fails.
func Then(f func(*Body) error) DecodeOption {
	return func(o *decodeOptions) { o.then = append(o.then, f) }
}

// Decode checks the header, the checksum and the body's structure, and
// decodes it. A failure is a *wire.Error (errors.As reaches it). Unless
// Owned, data is not retained: the decoded catalog's strings are views into
// one private copy of the body, which they keep alive.
func Decode(data []byte, opts ...DecodeOption) (*Body, error) {
	var o decodeOptions
	for _, opt := range opts {
		opt(&o)
	}
	body, verified, werr := decodeUnverified(data, o.owned)
	for _, then := range o.then {
		if werr != nil {
			break
		}
		werr = wire.ErrorOf(then(body))
	}
	// The checksum is awaited last, so that it overlaps then too.
	if werr = settle(verified, werr); werr != nil {
		return nil, wire.AsError(werr)
	}
	return body, nil
}

// decodeUnverified checks the header and decodes the body while its
// checksum is computed (checksumLater): the caller must settle verified
// and the error before it uses the body.
func decodeUnverified(data []byte, owned bool) (decoded *Body, verified func() bool, werr *wire.Error) {
	verified = func() bool { return true }
	if len(data) > maxBytes {
		return nil, verified, tooLarge(len(data))
	}
	if len(data) < headerSize || string(data[:8]) != magic {
		return nil, verified, invalid("not a toolsift snapshot (bad magic or too short)")
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != FormatVersion {
		return nil, verified, wire.Validation("unsupported_snapshot_version",
			fmt.Sprintf("snapshot format version %d is not supported (this build reads version %d)", v, FormatVersion))
	}
	if binary.LittleEndian.Uint32(data[12:]) != 0 {
		return nil, verified, invalid("snapshot header has a non-zero reserved field")
	}
	body := data[headerSize:]
	if n := binary.LittleEndian.Uint64(data[16:]); n != uint64(len(body)) {
		return nil, verified, invalid(fmt.Sprintf("snapshot body is %d bytes, the header says %d (truncated or padded)", len(body), n))
	}
	// The copy is what is checked and decoded, so that a caller writing
	// to data meanwhile cannot slip unchecked bytes past the checksum.
	if !owned {
		body = privateCopy(body)
	}
	verified = checksumLater(body, binary.LittleEndian.Uint64(data[24:]))
	// The generated decoders refuse a declared array length over the limit
	// set in core/catalog before allocating (see the msgp:limit directive
	// there); strings and byte tables are bounded by the input itself.
	decoded = new(Body)
	rest, err := decoded.UnmarshalMsg(body)
	if err != nil {
		return nil, verified, invalid("snapshot body does not decode: " + err.Error())
	}
	if len(rest) != 0 {
		return nil, verified, invalid("snapshot body has trailing bytes")
	}
	return decoded, verified, nil
}

// settle waits for the checksum and gives the open's error: the checksum's
// when it does not match, whatever else failed (so that a damaged snapshot
// always gives the same error), else werr.
func settle(verified func() bool, werr *wire.Error) *wire.Error {
	if !verified() {
		return invalid("snapshot checksum mismatch: the bytes were changed or damaged")
	}
	return werr
}

func invalid(message string) *wire.Error { return wire.Validation("invalid_snapshot", message) }
