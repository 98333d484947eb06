package jsonw

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// trickyFloats sit on or next to encoding/json's 'f'/'e' cut-offs, or
// exercise sign, rounding and the extremes of float64.
var trickyFloats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.1, -0.1, 1.5, 100, 1e6, 123456789,
	1e20, 1e21, -1e21, math.Nextafter(1e21, 0), math.Nextafter(1e21, 2e21), 1.5e300,
	1e-6, -1e-6, math.Nextafter(1e-6, 0), math.Nextafter(1e-6, 1), 1e-7, 1.2345e-8,
	9e-9, 1e-9, 1e-10, 1e-100, 5e-324, -5e-324,
	math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64,
	1 << 53, 1<<53 + 2, math.MaxInt64, math.MinInt64, 0.000001234, 12345678901234567890,
	math.Pi, math.E, 1 / 3.0, 2 / 3.0,
}

func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	for _, f := range trickyFloats {
		want, err := json.Marshal(f)
		require.NoError(t, err)
		got, ok := AppendFloat(nil, f)
		require.True(t, ok, "%v", f)
		require.Equal(t, string(want), string(got), "float %v (bits %#x)", f, math.Float64bits(f))
	}
}

func TestAppendFloatExactBytes(t *testing.T) {
	cases := map[float64]string{
		0:                        "0",
		math.Copysign(0, -1):     "-0",
		1:                        "1", // no ".0" for integral values
		1e20:                     "100000000000000000000",
		1e21:                     "1e+21",
		1e-6:                     "0.000001",
		1e-7:                     "1e-7", // strconv writes 1e-07
		1e-10:                    "1e-10",
		5e-324:                   "5e-324",
		math.MaxFloat64:          "1.7976931348623157e+308",
		123456789012345678:       "123456789012345680",
		math.Nextafter(0.3, 1):   "0.30000000000000004",
		-math.Nextafter(1e21, 0): "-999999999999999900000",
	}
	for f, want := range cases {
		got, ok := AppendFloat(nil, f)
		require.True(t, ok)
		require.Equal(t, want, string(got), "%v", f)
	}
}

func TestAppendFloatRefusesNaNAndInf(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Float64frombits(0x7ff0000000000001)} {
		_, err := json.Marshal(f)
		require.Error(t, err, "encoding/json accepted %v", f)
		dst := []byte("keep")
		got, ok := AppendFloat(dst, f)
		require.False(t, ok)
		require.Equal(t, "keep", string(got))
	}
}

func TestAppendFloatZeroAllocs(t *testing.T) {
	dst := make([]byte, 0, 64)
	for _, f := range trickyFloats {
		allocs := testing.AllocsPerRun(100, func() { dst, _ = AppendFloat(dst[:0], f) })
		require.Zero(t, allocs, "%v", f)
	}
}

func FuzzAppendFloat(f *testing.F) {
	for _, x := range trickyFloats {
		f.Add(math.Float64bits(x))
	}
	f.Add(math.Float64bits(math.NaN()))
	f.Add(math.Float64bits(math.Inf(1)))
	f.Add(math.Float64bits(math.Inf(-1)))
	f.Add(uint64(0xfff8000000000001)) // a negative NaN with payload
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		want, err := json.Marshal(x)
		got, ok := AppendFloat([]byte("x"), x)
		if err != nil {
			if ok || string(got) != "x" {
				t.Fatalf("bits %#x: encoding/json refused (%v) but AppendFloat gave %q, %v", bits, err, got, ok)
			}
			return
		}
		if !ok || string(got[1:]) != string(want) {
			t.Fatalf("bits %#x: got %q, %v; want %s", bits, got[1:], ok, want)
		}
	})
}

func TestAppendIntMatchesEncodingJSON(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 9, 10, -10, 1 << 53, math.MaxInt64, math.MinInt64} {
		want, err := json.Marshal(v)
		require.NoError(t, err)
		require.Equal(t, string(want), string(AppendInt(nil, v)))
	}
	require.Equal(t, "x42", string(AppendInt([]byte("x"), 42)))
}

// numberTexts are candidate JSON number literals, valid and not.
var numberTexts = []string{
	"", "0", "-0", "1", "-1", "10", "0.5", "-0.5", "1e5", "1E5", "1e+5", "1e-5",
	"1.5e-05", "123456789012345678901234567890", "0.000", "1E+0",
	"01", "-01", "00", "+1", "-", ".5", "1.", "1.e5", "1e", "1e+", "1e-", "1ex",
	"1e5.5", "0x10", "1_000", " 1", "1 ", "NaN", "Infinity", "-Infinity", "1..2",
	"--1", "1e5e5", "1.5.5", "٣", "1\x00",
}

func TestIsNumberMatchesEncodingJSON(t *testing.T) {
	for _, s := range numberTexts {
		want, wantErr := json.Marshal(json.Number(s))
		got, err := appendNumber(nil, s)
		if wantErr != nil {
			require.Error(t, err, "%q", s)
			continue
		}
		require.NoError(t, err, "%q", s)
		require.Equal(t, string(want), string(got), "%q", s)
	}
}

// FuzzNumber compares the JSON number grammar check with encoding/json's,
// both for Number and for json.Number passed through AppendValue.
func FuzzNumber(f *testing.F) {
	for _, s := range numberTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, wantErr := json.Marshal(json.Number(s))
		for _, v := range []any{Number(s), json.Number(s)} {
			got, err := AppendValue(nil, v, true)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("%q: err %v, encoding/json err %v", s, err, wantErr)
			}
			if err == nil && string(got) != string(want) {
				t.Fatalf("%q: got %q want %q", s, got, want)
			}
		}
		// A valid literal must parse as a float (or overflow to ±Inf).
		if wantErr == nil && s != "" {
			if _, err := strconv.ParseFloat(s, 64); err != nil && err.(*strconv.NumError).Err != strconv.ErrRange {
				t.Fatalf("%q accepted but ParseFloat says %v", s, err)
			}
		}
	})
}
