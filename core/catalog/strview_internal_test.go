package catalog

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tinylib/msgp/msgp"

	"github.com/toolsift/toolsift/core/internal/zerocopy"
)

// readStringView's fast paths (fixstr, str8) give what the general reader
// gives, value, rest and error, for every lead byte and every truncation.
func TestReadStringViewMatchesGeneralReader(t *testing.T) {
	var inputs [][]byte
	for _, s := range []string{"", "a", "飞书 chat", string(make([]byte, 31)), string(make([]byte, 32)), string(make([]byte, 255)), string(make([]byte, 256))} {
		enc := msgp.AppendInt(msgp.AppendString(nil, s), 7)
		for cut := range len(enc) + 1 {
			inputs = append(inputs, enc[:cut])
		}
	}
	for lead := range 256 {
		inputs = append(inputs, []byte{byte(lead)}, []byte{byte(lead), 3, 'a', 'b', 'c', 'd'})
	}
	for _, in := range inputs {
		want, wantRest, wantErr := zerocopy.String(in)
		got, rest, err := readStringView(in)
		require.Equal(t, want, got, "%x", in)
		require.Equal(t, len(wantRest), len(rest), "%x", in)
		require.Equal(t, wantErr, err, "%x", in)
	}
}
