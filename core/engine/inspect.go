package engine

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/internal/inspect"
	"github.com/toolsift/toolsift/core/text"
	"github.com/toolsift/toolsift/core/wire"
)

// Inspect answers one schema-inspect.v1 request with the reference's pretty
// JSON bytes (no trailing newline). The expected hashes are checked before
// the path is resolved: a caller holding results from another catalog
// generation gets catalog_changed, never a different tool's spec.
//
// The path may be a canonical path, a tool path, a CLI path or alias (spaces,
// dots or slashes), a product ID (the product's tool summaries) or a command
// group such as "chat message" (the summaries under it). A failure is a
// *wire.Error (errors.As reaches it).
func (e *Engine) Inspect(r wire.InspectRequest) ([]byte, error) {
	out, err := e.inspect(r)
	return out, wire.AsError(err)
}

func (e *Engine) inspect(r wire.InspectRequest) ([]byte, *wire.Error) {
	if r.ExpectedSourceHash == "" || r.ExpectedSurfaceHash == "" {
		return nil, wire.Validation("incomplete_catalog_version",
			"expected_source_hash and expected_surface_hash must both be given (copy them from the search response's catalog)")
	}
	path := strings.TrimSpace(r.CanonicalPath)
	if path == "" {
		return nil, wire.Validation("invalid_inspect_request", "canonical_path is required")
	}
	if r.ExpectedSourceHash != e.version.SourceHash {
		return nil, wire.Discovery("catalog_changed", "the catalog source changed since the search (source_hash differs)")
	}
	if r.ExpectedSurfaceHash != e.version.SurfaceHash {
		return nil, wire.Discovery("catalog_changed", "the catalog surface changed since the search (surface_hash differs)")
	}
	// After the hash checks, as the reference orders them: a stale caller
	// learns that first, whatever the path holds.
	if problem := e.unsafeText(path); problem != "" {
		return nil, wire.Validation("dangerous_path_unicode", "canonical_path contains "+problem)
	}
	spec, ok := e.renderPath(path)
	if !ok {
		return nil, wire.Validation("unknown_path", "no tool, product or command group is named "+quote(clipEcho(path))+
			": pass a canonical path as one string (chat.query_msg_read_status) or a CLI path with spaces (chat message read-status)")
	}
	return inspect.Document(e.version, spec), nil
}

func (e *Engine) renderPath(path string) ([]byte, bool) {
	if doc, ok := e.identity.ResolveQuery(path); ok {
		return inspect.RenderTool(nil, e.tools[doc], e.aliasCLIPath(doc, path)), true
	}
	tokens := catalog.SplitPathTokens(path)
	if len(tokens) == 0 {
		return nil, false
	}
	p, ok := e.productByID[tokens[0]]
	if !ok {
		return nil, false
	}
	product := e.products[p]
	if len(tokens) == 1 {
		return inspect.RenderProduct(nil, product), true
	}
	group := strings.Join(tokens, " ") + " "
	var members []int
	for i := range product.Tools {
		if underGroup(&product.Tools[i].Identity, group) {
			members = append(members, i)
		}
	}
	if len(members) == 0 {
		return nil, false
	}
	return inspect.RenderGroup(nil, product.Tools, members), true
}

// aliasCLIPath returns the alias the caller used, so the spec shows the
// command they typed; "" when they used the primary path or another form.
func (e *Engine) aliasCLIPath(doc int, path string) string {
	id := &e.tools[doc].Identity
	typed := catalog.NormalizeQueryCLIPath(path)
	if typed == "" || typed == id.CLIPath || typed == id.PrimaryCLIPath {
		return ""
	}
	for _, alias := range id.Aliases {
		if catalog.NormalizeCLIPath(alias) == typed {
			return catalog.NormalizeCLIPath(alias)
		}
	}
	return ""
}

func underGroup(id *catalog.Identity, groupWithSpace string) bool {
	for _, p := range append([]string{id.CLIPath, id.PrimaryCLIPath}, id.Aliases...) {
		if strings.HasPrefix(catalog.NormalizeCLIPath(p), groupWithSpace) {
			return true
		}
	}
	return false
}

// maxEcho bounds how much of a caller's path an error repeats: enough to
// recognise it, never a 60 KB message.
const maxEcho = 256

// clipEcho cuts s to at most maxEcho bytes on a rune boundary, marking the
// cut with "…".
func clipEcho(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	cut := maxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// quote puts s in double quotes for a message, escaping quotes, backslashes
// and every rune that does not display as itself (controls, invisible and
// direction-changing characters, which a profile may accept), so that an
// error never carries them raw.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r != ' ' && (text.CheckUnsafeStrict(string(r)) != text.Safe || !unicode.IsPrint(r)):
			if r > 0xFFFF {
				fmt.Fprintf(&b, `\U%08X`, r)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
