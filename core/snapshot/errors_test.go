package snapshot_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/testdata"
)

// The public API returns error, not *wire.Error: a success must be a nil
// interface (a nil *wire.Error inside an error is non-nil, and a caller's
// `if err != nil` would take it for a failure), and a failure must hold the
// typed error where errors.As finds it.
func TestPublicErrorsAreNilInterfacesOnSuccess(t *testing.T) {
	isNil := func(name string, err error) {
		t.Helper()
		require.True(t, err == nil, "%s: a successful call returned a non-nil error %#v", name, err)
	}
	_, err := snapshot.Decode(testdata.DWSSnapshot)
	isNil("Decode", err)
	_, err = snapshot.DecodeOwned(bytes.Clone(testdata.DWSSnapshot))
	isNil("DecodeOwned", err)
	_, err = snapshot.OpenOwned(bytes.Clone(testdata.DWSSnapshot))
	isNil("OpenOwned", err)
	e, err := snapshot.Open(testdata.DWSSnapshot)
	isNil("Open", err)

	request := []byte(`{"version":"tool-search.v1","query":"发送群消息"}`)
	_, err = e.SearchJSON(request)
	isNil("SearchJSON", err)
	_, err = e.AppendSearchJSON(nil, request)
	isNil("AppendSearchJSON", err)
	decoded, werr := wire.DecodeSearchRequest(request)
	require.Nil(t, werr)
	_, err = e.Search(decoded)
	isNil("Search", err)

	v := e.Version()
	inspect := wire.InspectRequest{Version: wire.InspectVersion, CanonicalPath: "chat.query_msg_read_status",
		ExpectedSourceHash: v.SourceHash, ExpectedSurfaceHash: v.SurfaceHash}
	_, err = e.Inspect(inspect)
	isNil("Inspect", err)
}

func TestPublicErrorsHoldTheTypedError(t *testing.T) {
	typed := func(name, reason string, err error) {
		t.Helper()
		var werr *wire.Error
		require.True(t, errors.As(err, &werr), "%s: %T %v holds no *wire.Error", name, err, err)
		require.Equal(t, reason, werr.Reason, name)
	}
	_, err := snapshot.Decode([]byte("nope"))
	typed("Decode", "invalid_snapshot", err)
	_, err = snapshot.Open([]byte("nope"))
	typed("Open", "invalid_snapshot", err)

	var e *engine.Engine
	e, err = snapshot.Open(testdata.DWSSnapshot)
	require.NoError(t, err)
	_, err = e.SearchJSON([]byte(`{"version":"tool-search.v1"}`))
	typed("SearchJSON", "query_required", err)
	_, err = e.InspectJSON([]byte(`{"version":"schema-inspect.v1","canonical_path":"chat"}`))
	typed("InspectJSON", "incomplete_catalog_version", err)
}
