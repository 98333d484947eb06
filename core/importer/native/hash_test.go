package native

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSourceHashIsTheHashOfTheWholeForm: sourceHash writes the canonical
// JSON and the originals into the hash in pieces; the digest must be that of
// the whole form in one buffer, in a document several pieces long, with and
// without originals.
func TestSourceHashIsTheHashOfTheWholeForm(t *testing.T) {
	for _, withOriginals := range []bool{false, true} {
		doc := &Document{}
		for p := range 3 {
			product := Product{ID: fmt.Sprintf("p%d", p), Name: "Product", Description: "A product."}
			for i := range 400 {
				tool := Tool{Name: fmt.Sprintf("tool_%d", i), Description: strings.Repeat("words of a description ", 5)}
				if withOriginals {
					tool.Original = []byte(fmt.Sprintf(`{"name":"tool_%d","description":%q}`, i, tool.Description))
				}
				product.Tools = append(product.Tools, tool)
			}
			doc.Products = append(doc.Products, product)
		}
		whole := appendOriginals(AppendJSON(nil, doc), doc, keepAll)
		require.Greater(t, len(whole), 4*hashChunk, "the form spans several pieces")
		want := sha256.Sum256(whole)
		require.Equal(t, want[:], sourceHash(doc), "with originals: %v", withOriginals)
	}
}
