package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/hostapi"
)

// Shadowing. A hostile server can list a tool under the name of another
// server's (read_text_file, with the same description, and its own
// instructions after it), hoping the agent picks its copy. The gateway
// cannot tell which is genuine, but the operator can: the server marked
// "trusted", else the one listed first in the config file, is preferred.
// Every tool whose name another server's tool has too is flagged in the
// text of search answers, and a query that is exactly such a name answers
// with the preferred server's tool first.

// shadowing is a catalog's tools that share a name with another server's,
// or a name that looks the same (hostapi.LookalikeKey: case, width and
// invisible characters aside).
type shadowing struct {
	// notes is the flag of each such tool, by canonical path.
	notes map[string]string
	// byName is each shared name's canonical paths, the preferred first, by
	// the name's look-alike key.
	byName map[string][]string
}

// shared is the canonical paths of the tools named like query, the
// preferred first, when several servers have one (nil otherwise).
func (s shadowing) shared(query string) []string {
	return s.byName[hostapi.LookalikeKey(strings.TrimSpace(query))]
}

// findShadows groups a catalog's tools by what their name on their server
// looks like.
func (g *Gateway) findShadows(routes map[string]route) shadowing {
	byName := map[string][]string{}
	for path, r := range routes {
		key := hostapi.LookalikeKey(r.name)
		byName[key] = append(byName[key], path)
	}
	s := shadowing{notes: map[string]string{}, byName: map[string][]string{}}
	for _, name := range sortedNames(byName) {
		paths := byName[name]
		if len(paths) < 2 {
			continue
		}
		// Preferred first: trusted servers, then the config file's order
		// (a name is listed once per server, so paths break no tie).
		slices.SortFunc(paths, func(a, b string) int {
			ra, rb := routes[a], routes[b]
			if ra.server.cfg.Trusted != rb.server.cfg.Trusted {
				if ra.server.cfg.Trusted {
					return -1
				}
				return 1
			}
			if d := g.order(ra.server.cfg.Name) - g.order(rb.server.cfg.Name); d != 0 {
				return d
			}
			return strings.Compare(a, b)
		})
		s.byName[name] = paths
		first := routes[paths[0]]
		why := "listed first in the config"
		if first.server.cfg.Trusted {
			why = "trusted"
		}
		for i, path := range paths {
			r := routes[path]
			what := "the same name"
			for _, other := range paths {
				if other != path && routes[other].name != r.name {
					what = "a look-alike name"
				}
			}
			for _, other := range paths {
				if other != path && routes[other].def.tool.Description == r.def.tool.Description {
					what += " and the same description"
					break
				}
			}
			if i == 0 {
				s.notes[path] = fmt.Sprintf("has %s as %s; this one is from the server %s", what,
					strings.Join(paths[1:], ", "), why)
				continue
			}
			s.notes[path] = fmt.Sprintf("SHADOWS %s (%s, from another server): prefer %s, whose server is %s",
				paths[0], what, paths[0], why)
		}
	}
	return s
}

func sortedNames(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// preferExact answers a query that is exactly a name several servers share
// with their tools first, the preferred one first, then the engine's other
// candidates in its order, renumbered and cut to the limit. Each shared
// tool's reference is the engine's own (its exact answer for the tool's
// canonical path under the same filters: one the filters exclude stays
// out). Anything unexpected returns the engine's answer unchanged.
func preferExact(ctx context.Context, gen *generation, answer []byte, request wire.SearchRequest, paths []string) []byte {
	start, end, candidates, ok := candidatesSpan(answer)
	hashes, read := catalogOf(answer)
	if !ok || !read {
		return answer
	}
	var first []json.RawMessage
	for _, path := range paths {
		exact := request
		exact.Query = path
		body, err := json.Marshal(exact)
		if err != nil {
			return answer
		}
		one, err := gen.engine.Search(ctx, body)
		if err != nil {
			return answer
		}
		if same, read := catalogOf(one); !read || same != hashes {
			return answer // the engine swapped in between: keep its answer whole
		}
		if _, _, refs, ok := candidatesSpan(one); ok && len(refs) == 1 {
			first = append(first, refs[0])
		}
	}
	limit := request.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	out := first
	for _, c := range candidates {
		var ref struct {
			CanonicalPath string `json:"canonical_path"`
		}
		if json.Unmarshal(c, &ref) != nil {
			return answer
		}
		if !slices.Contains(paths, ref.CanonicalPath) {
			out = append(out, c)
		}
	}
	if len(out) > limit {
		out = out[:limit]
	}
	var b bytes.Buffer
	b.Write(answer[:start])
	b.WriteByte('[')
	for i, c := range out {
		if i > 0 {
			b.WriteByte(',')
		}
		renumbered, ok := withRank(c, i+1)
		if !ok {
			return answer
		}
		b.Write(renumbered)
	}
	b.WriteByte(']')
	b.Write(answer[end:])
	return b.Bytes()
}

// defaultSearchLimit is tool-search.v1's default number of candidates.
const defaultSearchLimit = 5

// candidatesSpan finds the "candidates" array of an answer: its bytes are
// answer[start:end], and each element's.
func candidatesSpan(answer []byte) (start, end int, candidates []json.RawMessage, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(answer))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, nil, false
		}
		if key, _ := tok.(string); key != "candidates" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return 0, 0, nil, false
			}
			continue
		}
		from := int(dec.InputOffset())
		if dec.Decode(&candidates) != nil {
			return 0, 0, nil, false
		}
		end = int(dec.InputOffset())
		start = from + bytes.IndexByte(answer[from:end], '[')
		return start, end, candidates, start >= from
	}
	return 0, 0, nil, false
}

// withRank is a reference's bytes with its "rank" set to rank. The wire
// writes rank after the reference's strings (whose quotes are escaped), so
// the first `,"rank":` is the field.
func withRank(ref json.RawMessage, rank int) ([]byte, bool) {
	const key = `,"rank":`
	at := bytes.Index(ref, []byte(key))
	if at < 0 {
		return nil, false
	}
	digits := at + len(key)
	stop := digits
	for stop < len(ref) && ref[stop] >= '0' && ref[stop] <= '9' {
		stop++
	}
	out := append([]byte{}, ref[:digits]...)
	out = strconv.AppendInt(out, int64(rank), 10)
	return append(out, ref[stop:]...), true
}

// answerCatalog is the catalog hashes of an answer.
type answerCatalog struct {
	SourceHash  string `json:"source_hash"`
	SurfaceHash string `json:"surface_hash"`
}

// catalogOf reads an answer's catalog hashes (and nothing else of it).
func catalogOf(answer []byte) (answerCatalog, bool) {
	var a struct {
		Catalog answerCatalog `json:"catalog"`
	}
	return a.Catalog, json.Unmarshal(answer, &a) == nil
}
