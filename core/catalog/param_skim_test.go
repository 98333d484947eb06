package catalog_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// storedLists is every stored parameter list of the DWS and generic test
// snapshots.
func storedLists(t testing.TB) [][]byte {
	var lists [][]byte
	for _, snap := range [][]byte{fixtures.DWSSnapshot, fixtures.GenericSnapshot} {
		body, err := snapshot.Decode(snap)
		require.NoError(t, err)
		for p := range body.Catalog.Products {
			for i := range body.Catalog.Products[p].Tools {
				if list := catalog.StoredParameters(&body.Catalog.Products[p].Tools[i]); list != nil {
					lists = append(lists, list)
				}
			}
		}
	}
	return lists
}

// TestSkimPassesEveryStoredParameterList: every list the snapshot writer
// produced for the test catalogs is checked by the skim, not handed to the
// decoder, and the skim ends where the list ends.
func TestSkimPassesEveryStoredParameterList(t *testing.T) {
	lists := storedLists(t)
	require.Greater(t, len(lists), 1000)
	for i, list := range lists {
		rest, ok := catalog.SkimParameters(list)
		require.True(t, ok, "list %d was not skimmed", i)
		require.Empty(t, rest, "list %d", i)
	}
}

// agreesWithTheDecoder is the skim's contract on any bytes: when it accepts
// a list, the decoder accepts it and stops at the same byte; and the check
// opening uses (skim, else decoder) says what the decoder says.
func agreesWithTheDecoder(t *testing.T, b []byte) {
	wantRest, wantErr := catalog.DecodeParametersToCheck(b)
	if rest, ok := catalog.SkimParameters(b); ok {
		require.NoError(t, wantErr, "the skim accepted what the decoder refuses: %x", b)
		require.Equal(t, len(wantRest), len(rest), "the skim stopped elsewhere: %x", b)
	}
	rest, err := catalog.CheckParameters(b)
	require.Equal(t, wantErr == nil, err == nil, "check and decoder disagree on %x", b)
	if err == nil {
		require.Equal(t, len(wantRest), len(rest), "check and decoder stop at different bytes: %x", b)
	}
}

// TestSkimAgreesWithTheDecoderOnDamagedLists damages stored lists at random
// (a fixed seed): flipped, replaced, inserted and removed bytes, and
// truncation, 40,000 cases, plus each list cut at every length up to 64.
func TestSkimAgreesWithTheDecoderOnDamagedLists(t *testing.T) {
	lists := storedLists(t)
	rng := rand.New(rand.NewPCG(19, 7))
	for range 40000 {
		b := append([]byte(nil), lists[rng.IntN(len(lists))]...)
		for range 1 + rng.IntN(3) {
			at := rng.IntN(len(b))
			switch rng.IntN(5) {
			case 0:
				b[at] ^= byte(1 << rng.IntN(8))
			case 1:
				b[at] = byte(rng.IntN(256))
			case 2:
				b = append(b[:at], append([]byte{byte(rng.IntN(256))}, b[at:]...)...)
			case 3:
				if len(b) > 1 {
					b = append(b[:at], b[at+1:]...)
				}
			case 4:
				b = b[:at]
			}
			if len(b) == 0 {
				break
			}
		}
		agreesWithTheDecoder(t, b)
	}
	for _, list := range lists[:50] {
		for n := range min(len(list), 64) {
			agreesWithTheDecoder(t, list[:n])
		}
	}
}

// FuzzSkimAgreesWithTheDecoder is the same property for the fuzzer, seeded
// with stored lists and the edge encodings the skim reads itself.
func FuzzSkimAgreesWithTheDecoder(f *testing.F) {
	for _, list := range storedLists(f)[:20] {
		f.Add(list)
	}
	for _, seed := range []string{
		"\x90", "\x91", "\xdc\x00\x01", "\xdc\x00",
		"\x91\x9e\xa1n\xa0\xa0\xa0\xa0\xa0\xc2\xc3\xa0\xa0\xc0\xc0\xc0\xc0",
		"\x91\x9e\xa1n\xa0\xa0\xa0\xa0\xa0\xc2\xc3\xa0\xa0\x91\xa1x\xc4\x01x\xc5\x00\x01y\xc0",
		"\x91\x9e\xd9\x01n\xa0\xa0\xa0\xa0\xa0\xc2\xc3\xa0\xa0\xc0\xc0\xc0\xc0",
		"\x91\x9e\xda\x00\x01n\xa0\xa0\xa0\xa0\xa0\xc2\xc3\xa0\xa0\xc0\xc0\xc0\xc0",
		"\x91\x9e\xa5n\xa0\xa0\xa0\xa0\xa0\xc2\xc3\xa0\xa0\xc0\xc0\xc0\xc0",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(agreesWithTheDecoder)
}
