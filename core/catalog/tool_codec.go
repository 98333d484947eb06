package catalog

import (
	"slices"
	"sync"

	"github.com/tinylib/msgp/msgp"
)

// toolArray is the number of elements of a stored tool with an original
// definition; without one the last element is left out, so that a snapshot
// of a catalog that keeps no definitions has the bytes (and the format
// version) it had before the field existed. A tool with extra text or a
// deprecated mark has two more elements (toolArrayExtended), the original
// then written even when absent (as nil): catalogs without either keep
// their bytes, and a reader that predates them refuses such a tool instead
// of misreading it.
const (
	toolArray         = 15
	toolArrayExtended = toolArray + 2
)

// storedParameters is a decoded tool's parameter list as the snapshot
// stores it. Search reads a tool's parameters only for a pattern search;
// Inspect reads one tool's. Keeping every tool's decoded was most of what
// the decoded catalog took in memory (natively, at 100,000 synthetic tools,
// the heap after decoding fell from 335 to 241 MiB without them), so they
// are checked at open (decoded into a scratch value) and kept decoded only
// from their first use.
type storedParameters struct {
	encoded []byte // a MessagePack array of Parameter tuples, checked to decode
	once    sync.Once
	decoded []Parameter
}

// Params is the tool's parameters, sorted by name: Parameters, or for a
// tool decoded from a snapshot its stored ones, decoded once (safe for
// concurrent use).
func (z *Tool) Params() []Parameter {
	s := z.stored
	if s == nil {
		return z.Parameters
	}
	s.once.Do(func() {
		params, rest, err := decodeParameters(s.encoded, true)
		if err == nil && len(rest) != 0 {
			err = msgp.ErrShortBytes
		}
		if err != nil {
			// UnmarshalMsg ran the same decoder over the same bytes.
			panic("catalog: stored parameters no longer decode: " + err.Error())
		}
		s.decoded = params
	})
	return s.decoded
}

// Plain is the tool with its parameters in Parameters and nothing left to
// decode: what the tool was before it was stored, field for field.
func (z *Tool) Plain() Tool {
	c := *z
	c.Parameters, c.stored = z.Params(), nil
	return c
}

// Plain is the catalog with every tool Plain (the products and tools are
// copies; strings and contract bytes are shared).
func (c *Catalog) Plain() Catalog {
	out := *c
	out.Products = slices.Clone(c.Products)
	for p := range out.Products {
		tools := slices.Clone(out.Products[p].Tools)
		for t := range tools {
			tools[t] = tools[t].Plain()
		}
		out.Products[p].Tools = tools
	}
	return out
}

// decodeParameters decodes a stored parameter list at the start of b and
// returns what follows it; keep false checks it without keeping anything
// (each element decodes over the last).
func decodeParameters(b []byte, keep bool) ([]Parameter, []byte, error) {
	n, b, err := msgp.ReadArrayHeaderBytes(b)
	if err != nil {
		return nil, b, msgp.WrapError(err, "Parameters")
	}
	if n > z597e1446limitArrays {
		return nil, b, msgp.ErrLimitExceeded
	}
	var scratch Parameter
	var out []Parameter
	if keep && n > 0 { // none decodes as nil, as the generated decoders make it
		out = make([]Parameter, n)
	}
	for i := range int(n) {
		at := &scratch
		if keep {
			at = &out[i]
		}
		if b, err = at.UnmarshalMsg(b); err != nil {
			return nil, b, msgp.WrapError(err, "Parameters", i)
		}
	}
	return out, b, nil
}

// MarshalMsg appends the tool's MessagePack array.
func (z *Tool) MarshalMsg(b []byte) ([]byte, error) {
	if z.stored != nil {
		plain := z.Plain()
		return plain.MarshalMsg(b)
	}
	start := len(b)
	o, err := (*toolFields)(z).MarshalMsg(b)
	if err != nil {
		return o, err
	}
	if z.Extra != "" || z.Deprecated {
		// The generated code wrote a fixarray header of toolArray elements;
		// 17 needs an array16 header, two bytes longer.
		o = append(o, 0, 0)
		copy(o[start+3:], o[start+1:len(o)-2])
		o[start], o[start+1], o[start+2] = 0xdc, 0, toolArrayExtended
		o = msgp.AppendString(o, z.Extra)
		return msgp.AppendBool(o, z.Deprecated), nil
	}
	if len(z.Original) > 0 {
		return o, nil
	}
	// The generated code wrote a fixarray header of toolArray elements and,
	// last, a nil (or an empty bin8) for the absent original: shorten the
	// one, drop the other.
	tail := 1
	if z.Original != nil {
		tail = 2
	}
	o[start] = 0x90 | (toolArray - 1)
	return o[:len(o)-tail], nil
}

// UnmarshalMsg reads a tool of toolArray elements, or one fewer (no
// original definition), or toolArrayExtended (extra text and the deprecated
// mark last), in the order toolFields' generated encoder writes them. The parameters are checked and kept encoded (storedParameters).
func (z *Tool) UnmarshalMsg(bts []byte) ([]byte, error) {
	n, bts, err := msgp.ReadArrayHeaderBytes(bts)
	if err != nil {
		return bts, msgp.WrapError(err)
	}
	if n != toolArray && n != toolArray-1 && n != toolArrayExtended {
		return bts, msgp.ArrayError{Wanted: toolArray, Got: n}
	}
	*z = Tool{}
	if bts, err = z.Identity.UnmarshalMsg(bts); err != nil {
		return bts, msgp.WrapError(err, "Identity")
	}
	for _, text := range []*string{&z.Title, &z.Display, &z.Description} {
		if *text, bts, err = readStringView(bts); err != nil {
			return bts, msgp.WrapError(err, "Title, Display or Description")
		}
	}
	params := bts
	if bts, err = checkParameters(bts); err != nil {
		return bts, err
	}
	params = params[:len(params)-len(bts)]
	if len(params) > 1 { // not an empty array, which decodes as nil
		z.stored = &storedParameters{encoded: params}
	}
	if bts, err = z.Safety.UnmarshalMsg(bts); err != nil {
		return bts, msgp.WrapError(err, "Safety")
	}
	if bts, err = z.Interface.UnmarshalMsg(bts); err != nil {
		return bts, msgp.WrapError(err, "Interface")
	}
	if bts, err = z.Selection.UnmarshalMsg(bts); err != nil {
		return bts, msgp.WrapError(err, "Selection")
	}
	raw := []*RawJSON{&z.Constraints, &z.Positionals, &z.DryRun, &z.Result, &z.Pagination, &z.InputSchema, &z.Original}
	for _, r := range raw[:min(n, toolArray)-8] {
		if *r, bts, err = readRawJSONView(bts); err != nil {
			return bts, msgp.WrapError(err, "contract")
		}
	}
	if n == toolArrayExtended {
		if z.Extra, bts, err = readStringView(bts); err != nil {
			return bts, msgp.WrapError(err, "Extra")
		}
		if z.Deprecated, bts, err = msgp.ReadBoolBytes(bts); err != nil {
			return bts, msgp.WrapError(err, "Deprecated")
		}
	}
	return bts, nil
}

// readRawJSONView reads a nil or a MessagePack bin as a view into b, like
// the catalog's strings (readStringView). The generated decoder would copy
// it, and refuse one over the list limit (131,072 entries), which it needs
// because it allocates before it reads: a tool with an input schema of
// 200 KB (importers accept 1 MiB) built a snapshot that then did not open.
// A view allocates nothing, so the bytes present are its only bound.
func readRawJSONView(b []byte) (RawJSON, []byte, error) {
	if msgp.IsNil(b) {
		return nil, b[1:], nil
	}
	n, rest, err := msgp.ReadBytesHeader(b)
	if err != nil {
		return nil, b, err
	}
	if uint64(len(rest)) < uint64(n) {
		return nil, b, msgp.ErrShortBytes
	}
	return RawJSON(rest[:n:n]), rest[n:], nil
}

// Msgsize bounds the size of the tool's encoding.
func (z *Tool) Msgsize() int {
	// The extended header (2 bytes), the extra text and the mark.
	s := (*toolFields)(z).Msgsize() + 2 + msgp.StringPrefixSize + len(z.Extra) + msgp.BoolSize
	if z.stored != nil {
		s += len(z.stored.encoded)
	}
	return s
}
