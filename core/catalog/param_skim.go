package catalog

// Opening a snapshot checks every tool's stored parameters without keeping
// them (storedParameters). Through the generated decoder that is a call per
// field, a store into a scratch Parameter, and a copy of each default and
// example, and in the module calls are what cost (each spills every live
// value): Parameter.UnmarshalMsg alone took 33 ms of each open of 100,000
// tools in a Node CPU profile. The skim below walks the encodings the
// snapshot writer produces in one loop, and hands anything else to the
// decoder: warm opens in Node went from 392–431 to 361–376 ms.

// parameterFields is the length of a stored Parameter tuple, and
// parameterTuple its MessagePack header (a fixarray).
const (
	parameterFields = 14
	parameterTuple  = 0x90 | parameterFields
)

// checkParameters is decodeParameters(b, false): it checks the parameter
// list at the start of b and returns what follows it.
func checkParameters(b []byte) ([]byte, error) {
	if rest, ok := skimParameters(b); ok {
		return rest, nil
	}
	_, rest, err := decodeParameters(b, false)
	return rest, err
}

// skimParameters returns what follows the parameter list at the start of b
// and true when the list is in the encodings the writer uses (fix and 16-bit
// arrays, fix, 8- and 16-bit strings, 8- and 16-bit bins, nil) and the decoder
// would accept it, element for element. Anything else gives false, and
// then the decoder decides (which may still accept it).
func skimParameters(b []byte) ([]byte, bool) {
	n, i, ok := skimArrayHeader(b, 0)
	if !ok {
		return b, false
	}
	for range n {
		if i >= len(b) || b[i] != parameterTuple {
			return b, false
		}
		i++
		for field := range parameterFields {
			switch field {
			case 6, 7: // Required, CLIRequired
				if i >= len(b) || b[i]|1 != 0xc3 { // 0xc2 false, 0xc3 true
					return b, false
				}
				i++
			case 10: // Enum: nil or an array of strings
				if i < len(b) && b[i] == 0xc0 {
					i++
					continue
				}
				var values int
				if values, i, ok = skimArrayHeader(b, i); !ok {
					return b, false
				}
				for range values {
					if i, ok = skimString(b, i); !ok {
						return b, false
					}
				}
			case 11, 12, 13: // Default, InterfaceDefault, Example: nil or a bin
				if i, ok = skimRawJSON(b, i); !ok {
					return b, false
				}
			default: // the strings, most of them fixstrs, passed here without a call
				if i < len(b) && b[i]&0xe0 == 0xa0 {
					i += 1 + int(b[i]&0x1f) // past the end: the next test, or the last, fails
				} else if i, ok = skimString(b, i); !ok {
					return b, false
				}
			}
		}
	}
	if i > len(b) {
		return b, false
	}
	return b[i:], true
}

// skimArrayHeader reads a fixarray or array16 header at b[i:]: at most
// 65,535 elements, under the decoder's limit on a list (131,072).
func skimArrayHeader(b []byte, i int) (n, next int, ok bool) {
	switch {
	case i < len(b) && b[i]&0xf0 == 0x90:
		return int(b[i] & 0x0f), i + 1, true
	case i+2 < len(b) && b[i] == 0xdc:
		return int(b[i+1])<<8 | int(b[i+2]), i + 3, true
	}
	return 0, i, false
}

// skimString passes a fixstr, str8 or str16 at b[i:] whose bytes are all
// there.
func skimString(b []byte, i int) (int, bool) {
	if i < len(b) && b[i]&0xe0 == 0xa0 {
		next := i + 1 + int(b[i]&0x1f)
		return next, next <= len(b)
	}
	return skimSized(b, i, 0xd9) // str8, str16
}

// skimRawJSON passes a nil, or a bin8 or bin16 at b[i:] whose bytes are all
// there (no bin16 is over the decoder's limit).
func skimRawJSON(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == 0xc0 {
		return i + 1, true
	}
	return skimSized(b, i, 0xc4) // bin8, bin16
}

// skimSized passes a value at b[i:] whose bytes are all there, tagged
// tag8 with an 8-bit length or tag8+1 with a 16-bit one (MessagePack's
// str8 and str16, bin8 and bin16).
func skimSized(b []byte, i int, tag8 byte) (int, bool) {
	size, at := 0, 0
	switch {
	case i+1 < len(b) && b[i] == tag8:
		size, at = int(b[i+1]), i+2
	case i+2 < len(b) && b[i] == tag8+1:
		size, at = int(b[i+1])<<8|int(b[i+2]), i+3
	default:
		return i, false
	}
	if len(b)-at < size {
		return i, false
	}
	return at + size, true
}
