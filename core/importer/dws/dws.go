// Package dws imports the DingTalk Workspace CLI catalog dump: catalog.json
// (the progressive product index with recorded hashes) and tools/<product>.json
// (every tool's full contract). It recomputes the surface and source hashes
// exactly as the reference does and refuses a dump whose recorded hashes
// differ, so that a catalog version reference always means what it says.
package dws

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/internal/jsonw"
)

// Format is the importer's name, recorded in the catalog.
const Format = "dws"

// Files maps slash-separated paths ("catalog.json", "tools/chat.json") to
// their contents.
type Files map[string][]byte

// Import builds a Catalog from a dump and verifies its recorded hashes.
func Import(files Files) (*catalog.Catalog, error) { return ImportWith(files, nil) }

// ImportBytes reads a dump given as FilesFromBytes takes it and imports it,
// calling checkpoint (when not nil) after each file it reads, as ImportWith
// does after each file it decodes and each tool it reads.
func ImportBytes(data []byte, checkpoint func()) (*catalog.Catalog, error) {
	if checkpoint == nil {
		checkpoint = func() {}
	}
	files, err := filesFromBytes(data, checkpoint)
	if err != nil {
		return nil, err
	}
	return ImportWith(files, checkpoint)
}

// ImportWith is Import calling checkpoint (when not nil) after each file it
// decodes and each tool it reads (see importer.Options.Checkpoint).
func ImportWith(files Files, checkpoint func()) (*catalog.Catalog, error) {
	if checkpoint == nil {
		checkpoint = func() {}
	}
	index, err := decodeObject(files, "catalog.json")
	if err != nil {
		return nil, err
	}
	checkpoint()
	recordedSurface, _ := index["surface_hash"].(string)
	recordedSource, _ := index["source_hash"].(string)
	catalogObject, ok := index["catalog"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("catalog.json: missing \"catalog\" object")
	}

	// Every tools/<product>.json, in name order.
	fullTools := map[string]any{}
	names := make([]string, 0, len(files))
	for name := range files {
		if path.Dir(name) == "tools" && strings.HasSuffix(name, ".json") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	toolsByProduct := map[string]map[string]any{}
	for _, name := range names {
		shard, err := decodeObject(files, name)
		if err != nil {
			return nil, err
		}
		checkpoint()
		productID, _ := shard["product"].(string)
		tools, ok := shard["tools"].(map[string]any)
		if productID == "" || !ok {
			return nil, fmt.Errorf("%s: want {\"product\": id, \"tools\": {…}}", name)
		}
		if _, dup := toolsByProduct[productID]; dup {
			return nil, fmt.Errorf("%s: product %q appears in two files", name, productID)
		}
		toolsByProduct[productID] = tools
		for canonical, payload := range tools {
			if _, dup := fullTools[canonical]; dup {
				return nil, fmt.Errorf("%s: tool %q appears twice", name, canonical)
			}
			fullTools[canonical] = payload
		}
	}

	productList, _ := catalogObject["products"].([]any)
	if len(productList) == 0 {
		return nil, fmt.Errorf("catalog.json: no products")
	}
	out := &catalog.Catalog{Format: Format}
	seenProducts := map[string]bool{}
	for i, raw := range productList {
		object, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("catalog.json: products[%d] is not an object", i)
		}
		product, err := decodeProduct(object)
		if err != nil {
			return nil, fmt.Errorf("catalog.json: products[%d]: %w", i, err)
		}
		if seenProducts[product.ID] {
			return nil, fmt.Errorf("catalog.json: duplicate product %q", product.ID)
		}
		seenProducts[product.ID] = true
		tools := toolsByProduct[product.ID]
		canonicals := make([]string, 0, len(tools))
		for canonical := range tools {
			canonicals = append(canonicals, canonical)
		}
		sort.Strings(canonicals)
		for _, canonical := range canonicals {
			checkpoint()
			object, ok := tools[canonical].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("tools/%s.json: tool %q is not an object", product.ID, canonical)
			}
			tool, err := decodeTool(object)
			if err != nil {
				return nil, fmt.Errorf("tools/%s.json: tool %q: %w", product.ID, canonical, err)
			}
			if tool.Identity.CanonicalPath != canonical {
				return nil, fmt.Errorf("tools/%s.json: key %q holds tool %q", product.ID, canonical, tool.Identity.CanonicalPath)
			}
			if tool.Identity.ProductID != product.ID {
				return nil, fmt.Errorf("tools/%s.json: tool %q belongs to product %q", product.ID, canonical, tool.Identity.ProductID)
			}
			product.Tools = append(product.Tools, tool)
		}
		if want, ok := object["tool_count"].(json.Number); ok && want.String() != fmt.Sprint(len(product.Tools)) {
			return nil, fmt.Errorf("product %q: catalog.json lists %s tools, tools/%s.json holds %d", product.ID, want, product.ID, len(product.Tools))
		}
		out.Products = append(out.Products, product)
	}
	for productID := range toolsByProduct {
		if !seenProducts[productID] {
			return nil, fmt.Errorf("tools/%s.json: product %q is not in catalog.json", productID, productID)
		}
	}
	sort.Slice(out.Products, func(i, j int) bool { return out.Products[i].ID < out.Products[j].ID })

	flat := make([]*catalog.Tool, 0, len(fullTools))
	for p := range out.Products {
		for t := range out.Products[p].Tools {
			flat = append(flat, &out.Products[p].Tools[t])
		}
	}
	if _, err := catalog.NewIdentityIndex(flat); err != nil {
		return nil, err
	}
	checkpoint()
	surface := catalog.SurfaceHash(flat)
	checkpoint()
	if recordedSurface != surface {
		return nil, fmt.Errorf("catalog.json records surface_hash %q, the tools hash to %q", recordedSurface, surface)
	}
	source, err := sourceHash(index["version"], surface, catalogObject, fullTools, checkpoint)
	if err != nil {
		return nil, err
	}
	if recordedSource != source {
		return nil, fmt.Errorf("catalog.json records source_hash %q, the dump hashes to %q", recordedSource, source)
	}
	out.Version = catalog.VersionRef{SourceHash: source, SurfaceHash: surface}
	return out, nil
}

// sourceHash is SHA-256 over the compact, HTML-escaped JSON of
// {"version","surface_hash","catalog","tools"} with object keys sorted. The
// tools object is written one tool at a time, at a checkpoint each, into
// the hash rather than into one buffer of the whole dump.
func sourceHash(version any, surface string, catalogObject, tools map[string]any, checkpoint func()) (string, error) {
	h := sha256.New()
	buf := make([]byte, 0, 64<<10)
	buf = append(buf, `{"version":`...)
	buf, err := jsonw.AppendValue(buf, version, true)
	if err != nil {
		return "", fmt.Errorf("catalog.json: version: %w", err)
	}
	if surface != "" {
		buf = append(buf, `,"surface_hash":`...)
		buf = jsonw.AppendString(buf, surface, true)
	}
	buf = append(buf, `,"catalog":`...)
	if buf, err = jsonw.AppendValue(buf, catalogObject, true); err != nil {
		return "", fmt.Errorf("catalog.json: %w", err)
	}
	buf = append(buf, `,"tools":{`...)
	for i, canonical := range slices.Sorted(maps.Keys(tools)) {
		checkpoint()
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = jsonw.AppendString(buf, canonical, true)
		buf = append(buf, ':')
		if buf, err = jsonw.AppendValue(buf, tools[canonical], true); err != nil {
			return "", fmt.Errorf("tools: %w", err)
		}
		h.Write(buf)
		buf = buf[:0]
	}
	buf = append(buf, "}}"...)
	h.Write(buf)
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

func decodeObject(files Files, name string) (map[string]any, error) {
	data, ok := files[name]
	if !ok {
		return nil, fmt.Errorf("dump has no %s", name)
	}
	// jsonread builds the values encoding/json would (numbers as
	// json.Number), at about half its memory: the DWS dump is decoded
	// inside the module too.
	value, err := jsonread.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	object, ok := value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a JSON object, got %s", name, jsonread.TypeName(value))
	}
	return object, nil
}
