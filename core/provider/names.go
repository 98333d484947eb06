package provider

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/internal/jsonw"
	"github.com/toolsift/toolsift/core/wire"
)

// Provider names: the name each tool is shown under in a provider's tools
// list. Both providers take a name of 1 to 64 of a-z A-Z 0-9 _ - (OpenAI's
// function and namespace names, Anthropic's tool names), unique among the
// tools of one request, while a catalog's identities are free text: an MCP
// tool may be named "files.read", a server "my server", and the Anthropic
// name of server a's tool b__c would be the Anthropic name of server
// a__b's tool c.
//
// A tool keeps its own name (Anthropic: "<product>__<name>" outside the
// default product) when that name is valid and no other tool of the same
// list would get it. Otherwise it is shown as the name with every run of
// other characters made one "_", cut so that the whole fits and without
// trailing "_" ("tool" if nothing is left), then "_" and the first 8 hex
// digits of the SHA-256 of its canonical path (of its
// product ID, for an OpenAI namespace). Every member of a set that would
// share a name is renamed, so that no name depends on the order of the
// catalog. In the unlikely case that such a name is still taken, the
// digits grow to 16, 32, 48, 56, and past that (only a name made to equal
// it) the tool whose own name it equals is renamed too.
//
// The table is built once per engine (engine.Derived), on the first
// provider call that needs it: for the DWS catalog's 1,122 tools about
// 1 ms and 0.9 MB natively (BenchmarkBuildNames, 2026-12-07), then a map
// lookup per name.

// nameTableKey is this package's key for engine.Derived.
type nameTableKey struct{}

// names is a catalog's provider names, per tool in catalog order (product
// by product, each product's tools in canonical-path order).
type names struct {
	tools []*catalog.Tool
	// anthropic is each tool's Anthropic name.
	anthropic []string
	// openai is each tool's OpenAI function name: a top-level function's
	// for the default product, otherwise its name inside its namespace.
	openai []string
	// namespace is the OpenAI namespace name per product ID other than
	// the default product's.
	namespace map[string]string

	byCanonical map[string]int
	byAnthropic map[string]int
	// byOpenAI finds a tool by namespace ("" for a top-level function)
	// and function name.
	byOpenAI map[[2]string]int
	// byOpenAIName finds a tool by OpenAI function name, whatever its
	// namespace, where one tool alone has the name (-1 where several do).
	byOpenAIName map[string]int
}

// namesOf returns the engine's provider names, building them on first use.
func namesOf(e *engine.Engine) *names {
	return e.Derived(nameTableKey{}, func() any { return buildNames(e.Catalog()) }).(*names)
}

func buildNames(cat *catalog.Catalog) *names {
	n := &names{
		namespace:    map[string]string{},
		byCanonical:  map[string]int{},
		byAnthropic:  map[string]int{},
		byOpenAI:     map[[2]string]int{},
		byOpenAIName: map[string]int{},
	}
	for i := range cat.Products {
		for j := range cat.Products[i].Tools {
			t := &cat.Products[i].Tools[j]
			n.byCanonical[t.Identity.CanonicalPath] = len(n.tools)
			n.tools = append(n.tools, t)
		}
	}

	// Anthropic: one list of every tool.
	wanted := make([]entry, len(n.tools))
	for i, t := range n.tools {
		own := t.Identity.Name
		if t.Identity.ProductID != native.DefaultProduct {
			own = t.Identity.ProductID + "__" + own
		}
		wanted[i] = entry{own: own, key: t.Identity.CanonicalPath}
	}
	n.anthropic = assign(wanted)
	for i, name := range n.anthropic {
		n.byAnthropic[name] = i
	}

	// OpenAI: the top level holds the namespaces and the default
	// product's functions; each namespace holds its product's functions.
	n.openai = make([]string, len(n.tools))
	var top []entry
	var topTools []int
	var products []string
	for i := range cat.Products {
		p := &cat.Products[i]
		if p.ID == native.DefaultProduct {
			continue
		}
		products = append(products, p.ID)
		top = append(top, entry{own: p.ID, key: p.ID})
	}
	for i, t := range n.tools {
		if t.Identity.ProductID == native.DefaultProduct {
			topTools = append(topTools, i)
			top = append(top, entry{own: t.Identity.Name, key: t.Identity.CanonicalPath})
		}
	}
	shown := assign(top)
	for k, id := range products {
		n.namespace[id] = shown[k]
	}
	for k, i := range topTools {
		n.openai[i] = shown[len(products)+k]
	}
	start := 0
	for start < len(n.tools) {
		product := n.tools[start].Identity.ProductID
		end := start
		for end < len(n.tools) && n.tools[end].Identity.ProductID == product {
			end++
		}
		if product != native.DefaultProduct {
			members := make([]entry, 0, end-start)
			for _, t := range n.tools[start:end] {
				members = append(members, entry{own: t.Identity.Name, key: t.Identity.CanonicalPath})
			}
			copy(n.openai[start:end], assign(members))
		}
		start = end
	}
	for i, t := range n.tools {
		ns := ""
		if t.Identity.ProductID != native.DefaultProduct {
			ns = n.namespace[t.Identity.ProductID]
		}
		n.byOpenAI[[2]string{ns, n.openai[i]}] = i
		if _, seen := n.byOpenAIName[n.openai[i]]; seen {
			n.byOpenAIName[n.openai[i]] = -1
		} else {
			n.byOpenAIName[n.openai[i]] = i
		}
	}
	return n
}

// entry is one name to assign: the name wanted, and the string whose
// SHA-256 suffixes it when it cannot be kept.
type entry struct{ own, key string }

// hashDigits are the suffix lengths tried in turn; the last leaves 7
// bytes of the name.
var hashDigits = []int{8, 16, 32, 48, 56}

// assign gives every entry of one list a valid name unique in the list:
// its own when valid and wanted by no other entry, else a renamed one.
func assign(entries []entry) []string {
	wantedBy := make(map[string]int, len(entries))
	for _, e := range entries {
		wantedBy[e.own]++
	}
	out := make([]string, len(entries))
	taken := make(map[string]int, len(entries)) // name → entries holding it
	renamed := make([]bool, len(entries))
	digits := make([]int, len(entries))
	for i, e := range entries {
		if validToolName(e.own) && wantedBy[e.own] == 1 {
			out[i] = e.own
		} else {
			renamed[i] = true
			out[i] = suffixed(e, hashDigits[0])
		}
		taken[out[i]]++
	}
	// A renamed entry whose name is taken twice takes more digits; all of
	// a colliding set move together, so the result depends on the set
	// only. A kept name (valid and wanted once) moves only when a renamed
	// name still equals it with every length of digits, which takes a name
	// made to equal it: then it is renamed too.
	for {
		var moving []int
		for i := range entries {
			if renamed[i] && taken[out[i]] > 1 && digits[i] < len(hashDigits)-1 {
				moving = append(moving, i)
			}
		}
		if len(moving) == 0 {
			for i := range entries {
				if !renamed[i] && taken[out[i]] > 1 {
					moving = append(moving, i)
				}
			}
			if len(moving) == 0 {
				return out
			}
		}
		for _, i := range moving {
			taken[out[i]]--
			if renamed[i] {
				digits[i]++
			}
			renamed[i] = true
			out[i] = suffixed(entries[i], hashDigits[digits[i]])
			taken[out[i]]++
		}
	}
}

// suffixed is e's name made valid and cut, then "_" and digits hex digits
// of the SHA-256 of e's key.
func suffixed(e entry, digits int) string {
	sum := sha256.Sum256([]byte(e.key))
	suffix := hex.EncodeToString(sum[:])[:digits]
	room := maxSearchToolNameBytes - 1 - digits
	prefix := make([]byte, 0, room)
	for _, r := range e.own {
		if len(prefix) == room {
			break
		}
		if r < utf8.RuneSelf && isNameByte(byte(r)) {
			prefix = append(prefix, byte(r))
		} else if len(prefix) == 0 || prefix[len(prefix)-1] != '_' {
			prefix = append(prefix, '_')
		}
	}
	for len(prefix) > 0 && prefix[len(prefix)-1] == '_' {
		prefix = prefix[:len(prefix)-1] // the suffix's own "_" separates
	}
	if len(prefix) == 0 {
		prefix = append(prefix, "tool"...)
	}
	return string(prefix) + "_" + suffix
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// anthropicName is the name t has in an Anthropic tools list.
func anthropicName(e *engine.Engine, t *catalog.Tool) string {
	n := namesOf(e)
	return n.anthropic[n.byCanonical[t.Identity.CanonicalPath]]
}

// openAIName is the name t has in an OpenAI tools list (inside its
// namespace, outside the default product).
func openAIName(e *engine.Engine, t *catalog.Tool) string {
	n := namesOf(e)
	return n.openai[n.byCanonical[t.Identity.CanonicalPath]]
}

// openAINamespace is the name of a product's OpenAI namespace.
func openAINamespace(e *engine.Engine, productID string) string {
	return namesOf(e).namespace[productID]
}

// shownQuery maps a query that is a name a tool is shown under by the
// provider to that tool's canonical path, so that the engine's exact guard
// finds it; any other query is returned as it is. For OpenAI a function
// name counts when one tool alone has it, or as "<namespace>.<name>".
func shownQuery(e *engine.Engine, provider, query string) string {
	if query == "" {
		return query
	}
	n := namesOf(e)
	i, ok := -1, false
	switch provider {
	case ProviderAnthropic:
		i, ok = n.byAnthropic[query]
	case ProviderOpenAI:
		if i, ok = n.byOpenAIName[query]; ok && i < 0 {
			ok = false
		}
		if !ok {
			for k := 0; k < len(query); k++ {
				if query[k] == '.' {
					if i, ok = n.byOpenAI[[2]string{query[:k], query[k+1:]}]; ok {
						break
					}
				}
			}
		}
	}
	if !ok {
		return query
	}
	return n.tools[i].Identity.CanonicalPath
}

// shownRequest maps the query and subqueries of a search request
// (shownQuery).
func shownRequest(e *engine.Engine, provider string, r wire.SearchRequest) wire.SearchRequest {
	r.Query = shownQuery(e, provider, r.Query)
	if len(r.Subqueries) > 0 {
		subs := make([]string, len(r.Subqueries))
		for i, q := range r.Subqueries {
			subs[i] = shownQuery(e, provider, q)
		}
		r.Subqueries = subs
	}
	return r
}

// ResolveName maps a name a provider shows back to the tool: for
// "anthropic" a tool name, for "openai" a function name and its namespace
// ("" for a top-level function). It appends {"canonical_path",
// "product_id","name"}: the tool's identity and own name. An unknown name
// is a validation error (unknown_name).
func ResolveName(dst []byte, e *engine.Engine, provider, namespace, name string) ([]byte, error) {
	n := namesOf(e)
	i, ok := -1, false
	switch provider {
	case ProviderAnthropic:
		if namespace != "" {
			return dst, wire.Validation("unexpected_field", `an Anthropic tool name has no "namespace"`)
		}
		i, ok = n.byAnthropic[name]
	case ProviderOpenAI:
		i, ok = n.byOpenAI[[2]string{namespace, name}]
	default:
		return dst, unknownProvider(provider)
	}
	if !ok {
		where := ""
		if namespace != "" {
			where = fmt.Sprintf(" in namespace %q", namespace)
		}
		return dst, wire.Validation("unknown_name", fmt.Sprintf("no tool is shown to %s as %q%s", provider, name, where))
	}
	t := n.tools[i]
	o := jsonw.StartObject(dst, true)
	o.String("canonical_path", t.Identity.CanonicalPath)
	o.String("product_id", t.Identity.ProductID)
	o.String("name", t.Identity.Name)
	return o.End(), nil
}

// Names appends the provider's name table, in catalog order: one
// {"canonical_path","name"} per tool, with "namespace" for an OpenAI
// function inside one.
func Names(dst []byte, e *engine.Engine, provider string) ([]byte, error) {
	n := namesOf(e)
	var shown []string
	switch provider {
	case ProviderAnthropic:
		shown = n.anthropic
	case ProviderOpenAI:
		shown = n.openai
	default:
		return dst, unknownProvider(provider)
	}
	dst = append(dst, '[')
	for i, t := range n.tools {
		if i > 0 {
			dst = append(dst, ',')
		}
		o := jsonw.StartObject(dst, true)
		o.String("canonical_path", t.Identity.CanonicalPath)
		if provider == ProviderOpenAI && t.Identity.ProductID != native.DefaultProduct {
			o.String("namespace", n.namespace[t.Identity.ProductID])
		}
		o.String("name", shown[i])
		dst = o.End()
	}
	return append(dst, ']'), nil
}

// withName returns a tool's kept definition with name as its name: the
// "name" member, or "function"."name" for a Chat Completions tool. The
// definition is re-encoded as stored (compact, keys sorted).
func withName(original []byte, name string) ([]byte, error) {
	var def map[string]any
	d := json.NewDecoder(bytes.NewReader(original))
	d.UseNumber()
	if err := d.Decode(&def); err != nil {
		return nil, err
	}
	if fn, ok := def["function"].(map[string]any); ok {
		if _, named := def["name"]; !named {
			fn["name"] = name
			return jsonw.AppendValue(nil, def, false)
		}
	}
	def["name"] = name
	return jsonw.AppendValue(nil, def, false)
}

func unknownProvider(provider string) error {
	return wire.Validation("unknown_provider", fmt.Sprintf(`unknown provider %q (known: "openai", "anthropic")`, provider))
}
