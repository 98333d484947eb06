package testdata

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
)

// RandomSearchRequests returns n tool-search.v1 request bodies made of cat's
// own words (its descriptions and canonical path segments, common and rare
// alike), 1 to 30 words and at most about 200 bytes each; every third sets a
// limit and a candidate limit, every fifth an effect filter. The same cat
// and seed give the same requests. Differential tests send them to two ways
// of answering that must agree byte for byte.
func RandomSearchRequests(cat *catalog.Catalog, n int, seed uint64) ([][]byte, error) {
	var words []string
	for _, product := range cat.Products {
		for _, tool := range product.Tools {
			words = append(words, strings.Fields(tool.Description)...)
			words = append(words, strings.Split(tool.Identity.CanonicalPath, ".")...)
		}
	}
	if len(words) < 1000 {
		return nil, fmt.Errorf("testdata: a catalog of %d words is too small for random requests", len(words))
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	out := make([][]byte, 0, n)
	for q := range n {
		var query strings.Builder
		for k := 1 + rng.IntN(30); k > 0 && query.Len() < 200; k-- {
			query.WriteString(words[rng.IntN(len(words))])
			query.WriteByte(' ')
		}
		request := map[string]any{"version": "tool-search.v1", "query": strings.TrimSpace(query.String())}
		if q%3 == 1 {
			request["limit"], request["candidate_limit"] = 1+rng.IntN(10), 10+rng.IntN(40)
		}
		if q%5 == 2 {
			request["effects"] = []string{"read"}
		}
		body, err := json.Marshal(request)
		if err != nil {
			return nil, err
		}
		out = append(out, body)
	}
	return out, nil
}
