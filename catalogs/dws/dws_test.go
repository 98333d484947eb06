package dws_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/catalogs/dws"
	"github.com/toolsift/toolsift/core/compile"
)

func TestSnapshotCopiesAreTheCallers(t *testing.T) {
	a := dws.Snapshot()
	require.Len(t, a, dws.Size())
	a[0] ^= 0xff // a caller scribbling on its copy changes nobody else's
	b := dws.Snapshot()
	require.NotEqual(t, a[0], b[0])
	e, err := compile.Open(b)
	require.NoError(t, err)
	require.Equal(t, "dws-v1", e.Profile().Name)
	require.Equal(t, 1122, e.Catalog().ToolCount())
}
