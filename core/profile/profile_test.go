package profile_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// TestProjectionMatchesReferenceDocuments checks the text dws-v1 indexes for
// every tool against the reference's indexed_documents.jsonl, field by field.
func TestProjectionMatchesReferenceDocuments(t *testing.T) {
	files, err := dws.FilesFromTarGz(fixtures.DWSCatalog)
	require.NoError(t, err)
	cat, err := dws.Import(files)
	require.NoError(t, err)
	byPath := map[string]struct {
		tool    *catalog.Tool
		product *catalog.Product
	}{}
	for p := range cat.Products {
		for i := range cat.Products[p].Tools {
			tool := &cat.Products[p].Tools[i]
			byPath[tool.Identity.CanonicalPath] = struct {
				tool    *catalog.Tool
				product *catalog.Product
			}{tool, &cat.Products[p]}
		}
	}
	data, err := fixtures.ReadGolden("indexed_documents.jsonl.gz")
	require.NoError(t, err)
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(nil, 4<<20)
	n := 0
	for scanner.Scan() {
		var doc struct {
			CanonicalPath   string            `json:"canonical_path"`
			AgentExecutable bool              `json:"agent_executable"`
			Fields          map[string]string `json:"fields"`
		}
		require.NoError(t, json.Unmarshal(scanner.Bytes(), &doc))
		entry, ok := byPath[doc.CanonicalPath]
		require.True(t, ok, doc.CanonicalPath)
		fields := profile.DWSV1.Project(entry.tool, entry.product)
		for f := profile.Field(0); f < profile.NumFields; f++ {
			require.Equal(t, doc.Fields[f.String()], fields[f], "%s %s", doc.CanonicalPath, f)
		}
		require.Equal(t, doc.AgentExecutable, entry.tool.Interface.AgentExecutable())
		n++
	}
	require.Equal(t, 1122, n)
}

func TestWithAlgorithm(t *testing.T) {
	p, err := profile.DWSV1.WithAlgorithm(profile.TFIDF)
	require.NoError(t, err)
	require.Equal(t, "dws-v1+fielded_tfidf_cosine", p.Name)
	require.Equal(t, profile.BM25, profile.DWSV1.Algorithm, "the released profile is never changed")
	_, err = profile.DWSV1.WithAlgorithm("dense")
	require.Error(t, err)
	got, ok := profile.Lookup("dws-v1")
	require.True(t, ok)
	require.Same(t, profile.DWSV1, got)
}
