package gateway

import (
	"bytes"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/require"
)

// The filter lets through exactly what the SDK decodes: nesting up to its
// 1,000 levels passes, one more is answered here.
func TestCheckLineDepthBound(t *testing.T) {
	nested := func(levels int) string {
		// The message object is one level; the params hold the rest.
		return `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` +
			strings.Repeat("[", levels-2) + strings.Repeat("]", levels-2) + `}}`
	}
	require.Nil(t, checkLine([]byte(nested(maxClientDepth)), false))
	_, err := jsonrpc.DecodeMessage([]byte(nested(maxClientDepth)))
	require.NoError(t, err, "the SDK decodes what the filter passes")
	require.Contains(t, string(checkLine([]byte(nested(maxClientDepth+1)), false)), `"code":-32700`)
	_, err = jsonrpc.DecodeMessage([]byte(nested(maxClientDepth + 1)))
	require.Error(t, err, "the SDK refuses what the filter answers")
	require.Nil(t, checkLine([]byte(`  {"jsonrpc":"2.0","method":"notifications/initialized"}  `), false))
	require.Nil(t, checkLine([]byte(`{"jsonrpc":"2.0","id":3,"result":{}}`), false))
	require.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a JSON-RPC message is a JSON object"}}`+"\n",
		string(checkLine([]byte(`"hello"`), false)))
}

// filterLines passes good lines on (a byte-order mark removed), answers
// bad ones, and skips blank ones.
func TestFilterLines(t *testing.T) {
	in := "\uFEFF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n  \n42\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
	var pass, out bytes.Buffer
	require.NoError(t, filterLines(strings.NewReader(in), &pass, &out))
	require.Equal(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n", pass.String())
	require.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a JSON-RPC message is a JSON object"}}`+"\n", out.String())
}
