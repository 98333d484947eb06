package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/internal/jsonw"
	"github.com/toolsift/toolsift/core/wire"
)

// Session state for progressive disclosure: which tools a conversation has
// loaded, under which catalog generation. The host keeps the state (JSON)
// and passes it with each answer; the answer then loads only tools the
// conversation has not, within the session's caps, and returns the state
// to keep. When the engine's catalog hashes are not the state's, the
// catalog changed under the conversation: the loaded set starts again
// (its definitions may be stale) and the answer says so.

// Session caps: how many tools, and how many bytes of their definitions, a
// conversation loads at most.
const (
	DefaultSessionTools = 64
	DefaultSessionBytes = 128 << 10
	MaxSessionTools     = 1024
	MaxSessionBytes     = 16 << 20
)

type session struct {
	SourceHash  string       `json:"source_hash"`
	SurfaceHash string       `json:"surface_hash"`
	MaxTools    int          `json:"max_tools"`
	MaxBytes    int          `json:"max_bytes"`
	Loaded      []loadedTool `json:"loaded"`

	changed bool     // the catalog is not the state's
	already []string // found, and loaded before
	capped  []string // found and within budget, but over a cap
	bytes   int      // of the loaded definitions
}

type loadedTool struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
}

// decodeSession reads a session state ({} starts one) against the
// engine's catalog.
func decodeSession(raw json.RawMessage, e *engine.Engine) (*session, error) {
	s := &session{}
	if err := strictDecode(raw, s); err != nil {
		return nil, wire.Validation("invalid_session", "session: "+err.Error())
	}
	if s.MaxTools == 0 {
		s.MaxTools = DefaultSessionTools
	}
	if s.MaxBytes == 0 {
		s.MaxBytes = DefaultSessionBytes
	}
	switch {
	case s.MaxTools < 0 || s.MaxTools > MaxSessionTools:
		return nil, wire.Validation("invalid_session", fmt.Sprintf("session max_tools must be between 1 and %d", MaxSessionTools))
	case s.MaxBytes < 0 || s.MaxBytes > MaxSessionBytes:
		return nil, wire.Validation("invalid_session", fmt.Sprintf("session max_bytes must be between 1 and %d", MaxSessionBytes))
	case len(s.Loaded) > s.MaxTools:
		return nil, wire.Validation("invalid_session", "session holds more tools than its max_tools")
	}
	// The host keeps the state and may have changed it: each count is
	// checked against the cap before it is added, so no sum overflows
	// (two counts near 2^63 once added up to a negative total that let
	// 2,265 bytes load under max_bytes 1500).
	seen := make(map[string]bool, len(s.Loaded))
	for _, l := range s.Loaded {
		if l.Path == "" || seen[l.Path] || l.Bytes <= 0 || l.Bytes > s.MaxBytes {
			return nil, wire.Validation("invalid_session", fmt.Sprintf("session loaded entry %q: want a unique path and a byte count between 1 and max_bytes", l.Path))
		}
		if l.Bytes > s.MaxBytes-s.bytes {
			return nil, wire.Validation("invalid_session", "session holds more bytes than its max_bytes")
		}
		seen[l.Path] = true
		s.bytes += l.Bytes
	}
	v := e.Version()
	if s.SourceHash != v.SourceHash || s.SurfaceHash != v.SurfaceHash {
		// A fresh state ({}) has no catalog yet; any other had another one.
		s.changed = s.SourceHash != "" || s.SurfaceHash != "" || len(s.Loaded) > 0
		s.SourceHash, s.SurfaceHash = v.SourceHash, v.SurfaceHash
		s.Loaded, s.bytes = nil, 0
	}
	for _, l := range s.Loaded {
		if toolAt(e.Catalog(), l.Path) == nil {
			return nil, wire.Validation("invalid_session", fmt.Sprintf("session loaded entry %q is not a tool of this catalog", l.Path))
		}
	}
	return s, nil
}

// recount replaces the state's byte counts by what the loaded tools'
// definitions measure in this answer's shape, so that the caps count what
// was loaded, not what the state says (a state may understate its tools to
// load more). A state made for the other provider's shape may then hold
// more than max_bytes: it loads nothing further.
func (s *session) recount(e *engine.Engine, size func(*catalog.Tool) (int, error)) error {
	if s == nil {
		return nil
	}
	s.bytes = 0
	for i, l := range s.Loaded {
		n, err := size(toolAt(e.Catalog(), l.Path)) // decodeSession checked that each is a tool
		if err != nil {
			return err
		}
		s.Loaded[i].Bytes = n
		s.bytes += n
	}
	return nil
}

// toolAt finds a tool by canonical path (a product ID holds no '.'); nil
// when the catalog has none there.
func toolAt(cat *catalog.Catalog, path string) *catalog.Tool {
	product, _, ok := strings.Cut(path, ".")
	if !ok {
		return nil
	}
	return findTool(cat, product, path)
}

// fresh drops the tools already loaded (nil session: all are fresh).
func (s *session) fresh(_ *engine.Engine, tools []*catalog.Tool) []*catalog.Tool {
	if s == nil {
		return tools
	}
	var out []*catalog.Tool
	for _, t := range tools {
		if s.has(t.Identity.CanonicalPath) {
			s.already = append(s.already, t.Identity.CanonicalPath)
			continue
		}
		out = append(out, t)
	}
	return out
}

func (s *session) has(path string) bool {
	for _, l := range s.Loaded {
		if l.Path == path {
			return true
		}
	}
	return false
}

// allow is withinBudget's check of the caps: a prefix fits when the loaded
// set with it stays within max_tools and max_bytes. The first tool that
// does not fit is reported as capped.
func (s *session) allow(size func(*catalog.Tool) (int, error)) func([]*catalog.Tool) (bool, error) {
	if s == nil {
		return nil
	}
	return func(kept []*catalog.Tool) (bool, error) {
		total := s.bytes
		for _, t := range kept {
			n, err := size(t)
			if err != nil {
				return false, err
			}
			total += n
		}
		if len(s.Loaded)+len(kept) > s.MaxTools || total > s.MaxBytes {
			s.capped = append(s.capped, kept[len(kept)-1].Identity.CanonicalPath)
			return false, nil
		}
		return true, nil
	}
}

// record adds the loaded tools to the state.
func (s *session) record(kept []*catalog.Tool, size func(*catalog.Tool) (int, error)) error {
	if s == nil {
		return nil
	}
	for _, t := range kept {
		n, err := size(t)
		if err != nil {
			return err
		}
		s.Loaded = append(s.Loaded, loadedTool{Path: t.Identity.CanonicalPath, Bytes: n})
		s.bytes += n
	}
	return nil
}

// wrap turns the answer at dst[start:] into the session form:
// {"output":…,"session":…,"catalog_changed":…,"already_loaded":[…],"over_cap":[…]}.
// Without a session the answer is returned as it is.
func (s *session) wrap(dst []byte, start int) []byte {
	if s == nil {
		return dst
	}
	answer := append([]byte(nil), dst[start:]...)
	o := jsonw.StartObject(dst[:start], true)
	o.Raw("output", answer)
	o.Key("session")
	st := jsonw.StartObject(o.Buf, true)
	st.String("source_hash", s.SourceHash)
	st.String("surface_hash", s.SurfaceHash)
	st.Int("max_tools", int64(s.MaxTools))
	st.Int("max_bytes", int64(s.MaxBytes))
	st.Key("loaded")
	st.Buf = append(st.Buf, '[')
	for i, l := range s.Loaded {
		if i > 0 {
			st.Buf = append(st.Buf, ',')
		}
		lo := jsonw.StartObject(st.Buf, true)
		lo.String("path", l.Path)
		lo.Int("bytes", int64(l.Bytes))
		st.Buf = lo.End()
	}
	st.Buf = append(st.Buf, ']')
	o.Buf = st.End()
	o.Bool("catalog_changed", s.changed)
	o.Strings("already_loaded", nonNil(s.already))
	o.Strings("over_cap", nonNil(unique(s.capped)))
	return o.End()
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// unique keeps the first of each path (allow may see the same refusal once
// per budget check), in order.
func unique(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
