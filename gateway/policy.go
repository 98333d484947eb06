package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/hostapi"
)

// Policy says, per client, which servers and tools it may see and which
// effects it may call. It is read from the config file's "policy" key:
//
//	"policy": {
//	  "stdio":     RULE,   // the local operator over stdio
//	  "anonymous": RULE,   // an HTTP request without a bearer token
//	  "default":   RULE,   // an authenticated client matched by nothing below
//	  "clients":   {"<client>": RULE, …},
//	  "scopes":    {"<scope>": RULE, …}   // a client without a "clients" entry
//	}
//	RULE = {"servers": {"<server>" | "*": {"effects": "read"|"write"|"destructive",
//	                                        "tools": ["<name or glob>", …],
//	                                        "denyTools": ["<name or glob>", …]}}}
//
// A rule without "servers" lets its client see and call everything, as a
// gateway without a policy does; every key defaults to that rule. A client
// is the TokenInfo.UserID the authentication middleware sets (a static
// token's client name, or a JWT's subject); one without a "clients" entry
// whose token carries scopes that "scopes" names gets the union of their
// rules.
//
// A client never sees a tool it may not call: search answers, inspect_tool
// and call_tool all apply the same visibility (Rule.visible).
type Policy struct {
	Stdio, Anonymous, Default *Rule
	Clients                   map[string]*Rule
	Scopes                    map[string]*Rule
	unions                    sync.Map // the scopes' rules of a token, joined by spaces → their union (*Rule)
}

// Rule is one client's view of the catalog.
type Rule struct {
	label string // how refusals name it: `client "alice"`, `the default rule`
	// all: no "servers" key, so no filtering at all (the gateway's
	// behaviour without a policy).
	all     bool
	servers map[string]serverRule // by server name; "*" for any other
	// union, when set, is the rules this one joins: it shows what any of
	// them shows (a token's scopes each granting a part).
	union []*Rule
}

type serverRule struct {
	ceiling   int      // the riskiest effect the client may call (riskRank)
	tools     []string // name patterns a tool must match; none: every tool
	denyTools []string // name patterns that hide a tool even so
}

// riskRank orders effects by risk (trust.go's effectRank); an unknown
// effect counts as destructive, since the guard would treat it so.
func riskRank(effect string) int {
	if r, ok := effectRank[effect]; ok {
		return r
	}
	return 2
}

var effectNames = []string{"read", "write", "destructive"}

func allowAll(label string) *Rule { return &Rule{label: label, all: true} }

// DefaultPolicy is the policy of a config without a "policy" key: every
// client sees and may call everything, as before policies existed.
func DefaultPolicy() *Policy {
	return &Policy{Stdio: allowAll("the stdio rule"), Anonymous: allowAll("the anonymous rule"),
		Default: allowAll("the default rule"), Clients: map[string]*Rule{}, Scopes: map[string]*Rule{}}
}

// Restricts reports whether any rule of p hides anything.
func (p *Policy) Restricts() bool {
	for _, r := range []*Rule{p.Stdio, p.Anonymous, p.Default} {
		if !r.all {
			return true
		}
	}
	for _, rules := range []map[string]*Rule{p.Clients, p.Scopes} {
		for _, r := range rules {
			if !r.all {
				return true
			}
		}
	}
	return false
}

// rawRule and rawServerRule are the policy as written. They are decoded
// strictly: the "policy" key is the gateway's alone (unlike a server
// entry, which a client shares), and a misspelt key must not widen what a
// client may do by being ignored.
type rawRule struct {
	Servers map[string]rawServerRule `json:"servers"`
}

type rawServerRule struct {
	Effects   *string  `json:"effects"`
	Tools     []string `json:"tools"`
	DenyTools []string `json:"denyTools"`
}

type rawPolicy struct {
	Stdio     *json.RawMessage           `json:"stdio"`
	Anonymous *json.RawMessage           `json:"anonymous"`
	Default   *json.RawMessage           `json:"default"`
	Clients   map[string]json.RawMessage `json:"clients"`
	Scopes    map[string]json.RawMessage `json:"scopes"`
}

// parsePolicy reads the "policy" key of a config file (absent: the
// default policy). names are every server the file lists, disabled ones
// included, so that disabling a server does not make its rule an error.
func parsePolicy(data []byte, names map[string]bool) (*Policy, error) {
	var doc struct {
		Policy json.RawMessage `json:"policy"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, configErrorf("not a JSON object: %v", err)
	}
	p := DefaultPolicy()
	if len(doc.Policy) == 0 || bytes.Equal(bytes.TrimSpace(doc.Policy), []byte("null")) {
		return p, nil
	}
	var raw rawPolicy
	if err := strictDecode(doc.Policy, &raw); err != nil {
		return nil, configErrorf("policy: %v", err)
	}
	for _, slot := range []struct {
		raw   *json.RawMessage
		rule  **Rule
		key   string
		label string
	}{{raw.Stdio, &p.Stdio, "stdio", "the stdio rule"}, {raw.Anonymous, &p.Anonymous, "anonymous", "the anonymous rule"},
		{raw.Default, &p.Default, "default", "the default rule"}} {
		if slot.raw == nil {
			continue
		}
		r, err := parseRule(*slot.raw, "policy."+slot.key, slot.label, names)
		if err != nil {
			return nil, err
		}
		*slot.rule = r
	}
	for _, client := range slices.Sorted(maps.Keys(raw.Clients)) {
		if client == "" {
			return nil, configErrorf("policy.clients: a client name is empty")
		}
		r, err := parseRule(raw.Clients[client], fmt.Sprintf("policy.clients[%q]", client), fmt.Sprintf("client %q", client), names)
		if err != nil {
			return nil, err
		}
		p.Clients[client] = r
	}
	for _, scope := range slices.Sorted(maps.Keys(raw.Scopes)) {
		if scope == "" || strings.ContainsAny(scope, " \t\n") {
			return nil, configErrorf("policy.scopes: %q is not a scope (one word, as OAuth writes them)", scope)
		}
		r, err := parseRule(raw.Scopes[scope], fmt.Sprintf("policy.scopes[%q]", scope), fmt.Sprintf("scope %q", scope), names)
		if err != nil {
			return nil, err
		}
		p.Scopes[scope] = r
	}
	return p, nil
}

func parseRule(data json.RawMessage, where, label string, names map[string]bool) (*Rule, error) {
	var raw rawRule
	if err := strictDecode(data, &raw); err != nil {
		return nil, configErrorf("%s: %v", where, err)
	}
	if raw.Servers == nil {
		return allowAll(label), nil
	}
	r := &Rule{label: label, servers: map[string]serverRule{}}
	for _, name := range slices.Sorted(maps.Keys(raw.Servers)) {
		if name != "*" && !names[name] {
			return nil, configErrorf("%s: server %q is not in mcpServers (a misspelt name would silently hide a server)", where, name)
		}
		rs := raw.Servers[name]
		sr := serverRule{ceiling: 0} // read, unless the rule says more
		if rs.Effects != nil {
			i := slices.Index(effectNames, *rs.Effects)
			if i < 0 {
				return nil, configErrorf("%s.servers[%q].effects %q: want read, write or destructive", where, name, *rs.Effects)
			}
			sr.ceiling = i
		}
		for _, list := range []struct {
			key      string
			patterns []string
			dst      *[]string
		}{{"tools", rs.Tools, &sr.tools}, {"denyTools", rs.DenyTools, &sr.denyTools}} {
			for _, pattern := range list.patterns {
				if _, err := path.Match(pattern, ""); err != nil || pattern == "" {
					return nil, configErrorf("%s.servers[%q].%s: %q is not a name or a glob pattern (*, ?, [...])", where, name, list.key, pattern)
				}
			}
			*list.dst = slices.Clone(list.patterns)
		}
		if rs.Tools != nil && len(rs.Tools) == 0 {
			return nil, configErrorf(`%s.servers[%q].tools is empty: leave the server out to hide it, or "tools" out for every tool`, where, name)
		}
		r.servers[name] = sr
	}
	return r, nil
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data")
	}
	return nil
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// verdict says whether rule lets its client see (and so call) the tool of
// route r, and if not, why, in words for the model.
func (rule *Rule) verdict(r route) (bool, string) {
	if rule.all {
		return true, ""
	}
	if rule.union != nil {
		for _, member := range rule.union {
			if ok, _ := member.verdict(r); ok {
				return true, ""
			}
		}
		return false, fmt.Sprintf("none of the rules of %s lets this client use tool %q of server %q", rule.label, r.name, r.server.cfg.Name)
	}
	server := r.server.cfg.Name
	sr, ok := rule.servers[server]
	if !ok {
		sr, ok = rule.servers["*"]
	}
	switch {
	case !ok:
		return false, fmt.Sprintf("server %q is not visible to %s", server, rule.label)
	case len(sr.tools) > 0 && !matchAny(sr.tools, r.name):
		return false, fmt.Sprintf("tool %q of server %q is not among the tools %s may use", r.name, server, rule.label)
	case matchAny(sr.denyTools, r.name):
		return false, fmt.Sprintf("tool %q of server %q is denied to %s", r.name, server, rule.label)
	}
	ceiling := sr.ceiling
	if !r.server.cfg.AllowDestructive {
		// A destructive tool of a server without allowDestructive cannot
		// be called by anyone: a client with a rule does not see it.
		ceiling = min(ceiling, 1)
	}
	if riskRank(r.effect) > ceiling {
		return false, fmt.Sprintf("its effect is %s and %s may call %s tools of server %q at most", r.effect, rule.label, effectNames[ceiling], server)
	}
	return true, ""
}

// seesServer reports whether rule shows any part of server (its name in
// status lines, its product in a search's servers filter).
func (rule *Rule) seesServer(server string) bool {
	if rule.all {
		return true
	}
	if rule.union != nil {
		return slices.ContainsFunc(rule.union, func(m *Rule) bool { return m.seesServer(server) })
	}
	_, ok := rule.servers[server]
	if !ok {
		_, ok = rule.servers["*"]
	}
	return ok
}

// ruleFor is the rule of the client that sent req: the stdio operator when
// the request did not come over HTTP (no header), the anonymous rule for an
// HTTP request without a bearer token, else the client's own rule by its
// TokenInfo.UserID, or the default rule.
func (p *Policy) ruleFor(ctx context.Context, req *mcp.CallToolRequest) *Rule {
	var extra *mcp.RequestExtra
	if req != nil {
		extra = req.Extra
	}
	return p.ruleForExtra(ctx, extra)
}

// ruleForExtra is ruleFor for any request, by its Extra.
func (p *Policy) ruleForExtra(ctx context.Context, extra *mcp.RequestExtra) *Rule {
	if extra == nil || extra.Header == nil {
		return p.Stdio
	}
	info := extra.TokenInfo
	if info == nil {
		info = auth.TokenInfoFromContext(ctx)
	}
	if info == nil {
		return p.Anonymous
	}
	if r, ok := p.Clients[info.UserID]; ok && info.UserID != "" {
		return r
	}
	return p.scopesRule(info.Scopes)
}

// scopesRule is the rule of a token's scopes: the one rule of the one
// scope "scopes" names, the union of several (made once per set of scopes
// and kept, so that its views are cached like any rule's), or the default
// rule when none is named.
func (p *Policy) scopesRule(scopes []string) *Rule {
	var matched []string
	for _, scope := range scopes {
		if _, ok := p.Scopes[scope]; ok {
			matched = append(matched, scope)
		}
	}
	slices.Sort(matched)
	matched = slices.Compact(matched)
	switch len(matched) {
	case 0:
		return p.Default
	case 1:
		return p.Scopes[matched[0]]
	}
	key := strings.Join(matched, " ")
	if r, ok := p.unions.Load(key); ok {
		return r.(*Rule)
	}
	quoted := make([]string, len(matched))
	union := &Rule{}
	for i, scope := range matched {
		quoted[i] = strconv.Quote(scope)
		member := p.Scopes[scope]
		union.all = union.all || member.all
		union.union = append(union.union, member)
	}
	union.label = "scopes " + strings.Join(quoted, ", ")
	if union.all {
		union.union = nil
	}
	r, _ := p.unions.LoadOrStore(key, union)
	return r.(*Rule)
}

// clientName names the client of a tool call for logs and refusals: its
// TokenInfo's UserID, "stdio", or "anonymous".
func clientName(ctx context.Context, req *mcp.CallToolRequest) string {
	switch {
	case req == nil || req.Extra == nil || req.Extra.Header == nil:
		return "stdio"
	}
	if info := ClientOf(ctx, req); info != nil {
		return info.UserID
	}
	return "anonymous"
}

// policyState is the policy serving and, per catalog generation, the
// search filters of each rule (views), computed once per generation and
// rule rather than per request.
type policyState struct {
	current atomic.Pointer[Policy]
	mu      sync.Mutex
	gen     *generation
	views   map[*Rule]*view
}

// maxCachedViews bounds the views kept for one generation.
const maxCachedViews = 256

// view is what one rule sees of one generation, as a search request's
// scope (wire.SearchScope): the products (servers) it may see, the effects
// it may see at most, and the canonical paths of the tools it may not see
// inside those. In the scope, a hidden tool does not exist for the search:
// the engine neither answers a query naming it exactly (not even to say it
// was filtered) nor ranks it, while the caller's own filters keep their
// meaning inside the scope.
type view struct {
	rule     *Rule
	products []string // sorted
	// effects are the catalog effects the rule can see at all (the
	// guard's effect is never below the catalog's, so a tool above the
	// riskiest ceiling is hidden whatever its guard effect); nil: all.
	effects  []string
	visible  map[string]bool // canonical path → visible
	tooLarge bool            // the exclusion list does not fit a request
	empty    bool            // the rule sees no tool of this catalog
	// scope is what every request of the view carries (requests share it:
	// it is only read). Its exclusion lists, sorted, the hidden tools that
	// its products and effects leave.
	scope *wire.SearchScope
}

// maxViewBytes bounds a view's exclusion list in a search request, leaving
// room under wire.MaxRequestBytes for the query, subqueries and the
// caller's filters.
const maxViewBytes = wire.MaxRequestBytes - 12<<10

// policy is the policy serving now.
func (g *Gateway) policy() *Policy {
	if p := g.pol.current.Load(); p != nil {
		return p
	}
	return defaultPolicy
}

var defaultPolicy = DefaultPolicy()

// viewOf is rule's view of gen, from the cache or computed.
func (g *Gateway) viewOf(gen *generation, rule *Rule) *view {
	if rule.all {
		return nil
	}
	s := &g.pol
	s.mu.Lock()
	defer s.mu.Unlock()
	// Views are kept per rule for the generation serving: a policy
	// swapped back and forth keeps its rules' views, and a reload's new
	// rules add theirs; bounded, since old rules are never asked again.
	if s.gen != gen || len(s.views) >= maxCachedViews {
		s.gen, s.views = gen, map[*Rule]*view{}
	}
	if v := s.views[rule]; v != nil {
		return v
	}
	v := computeView(gen, rule)
	s.views[rule] = v
	return v
}

func computeView(gen *generation, rule *Rule) *view {
	v := &view{rule: rule, visible: map[string]bool{}}
	products := map[string]bool{}
	riskiest := -1
	paths := slices.Sorted(maps.Keys(gen.routes))
	for _, p := range paths {
		r := gen.routes[p]
		if rule.seesServer(r.server.cfg.Name) {
			products[r.tool.ProductID] = true
		}
		if ok, _ := rule.verdict(r); ok {
			v.visible[p] = true
			riskiest = max(riskiest, riskRank(r.tool.Effect))
		}
	}
	v.products = slices.Sorted(maps.Keys(products))
	if len(v.visible) == 0 {
		v.empty = true
		return v
	}
	if riskiest < 2 {
		v.effects = effectNames[:max(riskiest, 0)+1]
	}
	var excluded []string
	size := 0
	for _, p := range paths {
		r := gen.routes[p]
		if v.visible[p] || !products[r.tool.ProductID] {
			continue
		}
		// Only those the scope's effects leave need their path (a tool
		// whose effect is outside the three, none today, always does).
		if e := r.tool.Effect; v.effects == nil || slices.Contains(v.effects, e) || !slices.Contains(effectNames, e) {
			excluded = append(excluded, p) // sorted: paths are
			size += len(p) + 3
		}
	}
	v.tooLarge = size > maxViewBytes
	v.scope = &wire.SearchScope{ProductIDs: v.products, Effects: v.effects, ExcludeCanonical: excluded}
	return v
}

// filter puts v into sr as its scope: a server of the caller's that the
// scope hides is answered as one the catalog lacks (the engine's own
// unknown_product, for a product with no tool in the scope), and the
// caller's own filters (servers, effects, exclusions) are
// left as they are, to narrow the search inside the scope. The engine then
// ranks only visible tools, so an answer holds up to limit of them, in the
// engine's own order and bytes, and names no hidden tool.
func (v *view) filter(sr *wire.SearchRequest) *wire.Error {
	if v.empty {
		return wire.Discovery("catalog_empty", "no tool of the catalog serving is visible to this client (the gateway's policy)")
	}
	if v.tooLarge {
		return wire.Internal("policy_view_too_large", fmt.Sprintf(
			"%s hides %d tools one by one, more than a search request can carry; give the rule fewer servers or a lower effect ceiling, so that servers or effects hide them whole",
			v.rule.label, len(v.scope.ExcludeCanonical)))
	}
	sr.Scope = v.scope
	return nil
}

// policyDenied is the refusal of inspect_tool or call_tool for a tool the
// client's rule hides: typed, and worded for the model. Why (the rule, the
// server, the effect) goes to the operator's log only: the model learns
// nothing of the tools and servers its rule hides beyond the path it asked
// for.
func (g *Gateway) policyDenied(client string, rule *Rule, r route, why string) *wire.Error {
	path := r.tool.CanonicalPath
	g.log.Info("refused by policy", "client", client, "rule", rule.label, "tool", path, "why", why)
	g.CountPolicyRefusal()
	return wire.Validation("policy_denied", fmt.Sprintf(
		"%s is not available to this client (the gateway's policy); search for another tool", path))
}

// checkPolicy refuses a resolved route the caller's rule hides.
func (g *Gateway) checkPolicy(ctx context.Context, req *mcp.CallToolRequest, r route) *wire.Error {
	rule := g.policy().ruleFor(ctx, req)
	if ok, why := rule.verdict(r); !ok {
		return g.policyDenied(clientName(ctx, req), rule, r, why)
	}
	return nil
}

// restrictSearch narrows sr to the view of the caller of req, which it
// returns (nil when the caller's rule sees everything). names are the
// servers the caller asked for.
func (g *Gateway) restrictSearch(ctx context.Context, req *mcp.CallToolRequest, gen *generation, sr *wire.SearchRequest) (*view, *wire.Error) {
	p := g.policy()
	v := g.viewOf(gen, p.ruleFor(ctx, req))
	if v == nil {
		return nil, nil
	}
	return v, v.filter(sr)
}

// visibleShared keeps the paths of a shared name that v shows.
func (v *view) visibleShared(paths []string) []string {
	if v == nil {
		return paths
	}
	var out []string
	for _, p := range paths {
		if v.visible[p] {
			out = append(out, p)
		}
	}
	return out
}

// showsServer reports whether a status line about server may be shown.
func (v *view) showsServer(server string) bool { return v == nil || v.rule.seesServer(server) }

// shadowNote is the shadowing flag of path that v may show. A flag names
// the other servers' tools of the same name, so under a view it is shown
// whole only when the view sees all of them; otherwise it names the
// visible ones alone, or none when no other is visible.
func (v *view) shadowNote(gen *generation, path string) string {
	note := gen.shadows.notes[path]
	if v == nil || note == "" {
		return note
	}
	r, ok := gen.routes[path]
	if !ok {
		return ""
	}
	var others []string
	all := true
	for _, p := range gen.shadows.byName[hostapi.LookalikeKey(r.name)] {
		switch {
		case p == path:
		case v.visible[p]:
			others = append(others, p)
		default:
			all = false
		}
	}
	switch {
	case all:
		return note
	case len(others) == 0:
		return ""
	}
	return fmt.Sprintf("shares its name (or one that looks the same) with %s, from another server: check which one you mean", strings.Join(others, ", "))
}

// maskForClient words an error for a client whose rule hides something:
// catalog_empty lists every server's state, which would name the servers
// the rule hides.
func (g *Gateway) maskForClient(ctx context.Context, req *mcp.CallToolRequest, werr *wire.Error) *wire.Error {
	if werr == nil || werr.Reason != "catalog_empty" || g.policy().ruleFor(ctx, req).all {
		return werr
	}
	return wire.Discovery("catalog_empty", "no tool is visible to this client yet (the gateway's policy; its servers may still be starting)")
}

// filterToolsList is the receiving middleware that applies the policy to
// tools/list: the tools --expose found added are shared by every session,
// so each client is shown those its rule lets it see (and the three tools
// of the surface).
func (g *Gateway) filterToolsList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		result, err := next(ctx, method, req)
		list, ok := result.(*mcp.ListToolsResult)
		if method != "tools/list" || err != nil || !ok {
			return result, err
		}
		rule := g.policy().ruleForExtra(ctx, req.GetExtra())
		if rule.all {
			return result, nil
		}
		gen := g.current()
		filtered := *list
		filtered.Tools = nil
		for _, t := range list.Tools {
			switch t.Name {
			case searchToolsTool.Name, inspectToolTool.Name, callToolTool.Name:
				filtered.Tools = append(filtered.Tools, t)
				continue
			}
			if gen == nil {
				continue
			}
			if r, ok := gen.routes[t.Name]; ok {
				if visible, _ := rule.verdict(r); visible {
					filtered.Tools = append(filtered.Tools, t)
				}
			}
		}
		if filtered.Tools == nil {
			filtered.Tools = []*mcp.Tool{}
		}
		return &filtered, nil
	}
}
