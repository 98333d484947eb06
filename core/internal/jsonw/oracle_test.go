package jsonw

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// The oracle for every test is encoding/json itself, in the two
// configurations jsonw promises to reproduce.

// marshalHTML is json.Marshal: HTML escaping on.
func marshalHTML(v any) ([]byte, error) {
	return json.Marshal(v)
}

// marshalNoHTML is a json.Encoder with SetEscapeHTML(false), minus the
// newline Encode writes after each value.
func marshalNoHTML(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// oracle returns the encoding/json bytes for v in the given mode.
func oracle(t testing.TB, v any, escapeHTML bool) []byte {
	t.Helper()
	var (
		want []byte
		err  error
	)
	if escapeHTML {
		want, err = marshalHTML(v)
	} else {
		want, err = marshalNoHTML(v)
	}
	require.NoError(t, err)
	return want
}
