// Package jsonw is toolsift's single JSON encoder.
//
// Everything the engine prints as JSON goes through this package, and the
// bytes it produces are byte-for-byte the bytes encoding/json would produce
// for the same values (json.Marshal, or a json.Encoder with
// SetEscapeHTML(false) minus its trailing newline). Golden files and the
// outputs of the native and WebAssembly builds can therefore be compared
// directly.
//
// It exists instead of encoding/json because the engine is also built for
// GOOS=wasip1 GOARCH=wasm, where reflection-driven encoding is both slow and
// pulls a large amount of code into the binary. The package therefore imports
// neither reflect nor encoding/json (nor fmt, which imports reflect). It only
// encodes the value shapes the engine actually has: strings, numbers,
// booleans, and the generic trees a json.Decoder with UseNumber produces.
// The tests use encoding/json as the oracle for every function.
//
// All Append functions follow the strconv.AppendX convention: they append to
// dst and return the extended slice, and they do not allocate when dst has
// enough spare capacity.
package jsonw

import (
	"math"
	"strconv"
)

// AppendInt appends v in decimal, exactly as encoding/json writes any Go
// integer. It is strconv.AppendInt in base 10 and allocates nothing when dst
// has room for up to 20 more bytes.
func AppendInt(dst []byte, v int64) []byte {
	return strconv.AppendInt(dst, v, 10)
}

// AppendFloat appends f exactly as encoding/json encodes a float64: the
// shortest decimal that round-trips, in plain 'f' notation unless
// |f| < 1e-6 or |f| >= 1e21, in which case 'e' notation is used with a
// one-digit negative exponent written without padding ("1e-7", not
// "1e-07"). Integral values have no ".0" and negative zero is "-0".
//
// JSON cannot represent NaN or ±Inf; for those it returns ok=false and dst
// unchanged. The cost is one strconv.AppendFloat call (shortest round-trip
// formatting); it allocates nothing when dst has room for 25 more bytes, the
// longest possible output (e.g. "-0.0000012345678901234567").
func AppendFloat(dst []byte, f float64) (out []byte, ok bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, false
	}
	// These cut-offs are the ES6 Number-to-String ones, which is what
	// encoding/json (and most other JSON producers) follow.
	abs := math.Abs(f)
	if abs == 0 || (abs >= 1e-6 && abs < 1e21) {
		return strconv.AppendFloat(dst, f, 'f', -1, 64), true
	}
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	// strconv pads exponents to two digits, but encoding/json (like ES6)
	// does not. In this branch only 1e-9 <= |f| < 1e-6 has a one-digit
	// exponent (e-07, e-08, e-09); all other exponents here already have
	// two or three digits (e+21 and up, e-10 and down).
	if n := len(dst); dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1]
		dst = dst[:n-1]
	}
	return dst, true
}

// AppendStrings appends values as a JSON array of strings (never null: a nil
// slice is written as []).
func AppendStrings(dst []byte, values []string, escapeHTML bool) []byte {
	dst = append(dst, '[')
	for i, v := range values {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, v, escapeHTML)
	}
	return append(dst, ']')
}
