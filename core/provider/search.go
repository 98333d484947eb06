package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/internal/jsonw"
	"github.com/toolsift/toolsift/core/wire"
)

// arguments are what the model passes to the search tool: a tool-search.v1
// request in the words of the tool's parameter schema (appendSchema).
type arguments struct {
	Query      string   `json:"query"`
	Subqueries []string `json:"subqueries"`
	Limit      int      `json:"limit"`
	Namespaces []string `json:"namespaces"`
	Effects    []string `json:"effects"`
	// Pattern, instead of query, is the engine's pattern mode (RE2,
	// case-insensitive): the schema does not offer it, but a caller who
	// describes it to the model in its own tool gets it answered.
	Pattern string `json:"pattern"`
}

// decodeArguments reads the model's arguments: a JSON object, or a string
// holding one (the encoding of a function call's arguments).
func decodeArguments(raw json.RawMessage) (wire.SearchRequest, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return wire.SearchRequest{}, wire.Validation("invalid_arguments", "search arguments: "+err.Error())
		}
		raw = []byte(text)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return wire.SearchRequest{}, wire.Validation("invalid_arguments", `search arguments are missing (want {"query": …})`)
	}
	var a arguments
	if err := strictDecode(raw, &a); err != nil {
		return wire.SearchRequest{}, wire.Validation("invalid_arguments", "search arguments: "+err.Error())
	}
	return wire.SearchRequest{
		Version:    wire.SearchVersion,
		Query:      a.Query,
		Subqueries: a.Subqueries,
		Limit:      a.Limit,
		ProductIDs: a.Namespaces,
		Effects:    a.Effects,
		Pattern:    a.Pattern,
	}, nil
}

// found searches and returns the found tools in rank order. The engine's
// error (a *wire.Error) passes through.
func found(e *engine.Engine, request wire.SearchRequest) ([]*catalog.Tool, error) {
	response, err := e.Search(request)
	if err != nil {
		var werr *wire.Error
		if errors.As(err, &werr) {
			return nil, werr
		}
		return nil, wire.Internal("search_failed", err.Error())
	}
	cat := e.Catalog()
	tools := make([]*catalog.Tool, 0, len(response.Candidates))
	for i := range response.Candidates {
		c := &response.Candidates[i]
		t := findTool(cat, c.ProductID, c.CanonicalPath)
		if t == nil {
			return nil, wire.Internal("unknown_candidate", fmt.Sprintf("the engine returned %q, which its catalog does not hold", c.CanonicalPath))
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// findTool finds a tool by product and canonical path; the catalog keeps
// both lists sorted.
func findTool(cat *catalog.Catalog, productID, canonical string) *catalog.Tool {
	products := cat.Products
	i := sort.Search(len(products), func(i int) bool { return products[i].ID >= productID })
	if i == len(products) || products[i].ID != productID {
		return nil
	}
	tools := products[i].Tools
	j := sort.Search(len(tools), func(j int) bool { return tools[j].Identity.CanonicalPath >= canonical })
	if j == len(tools) || tools[j].Identity.CanonicalPath != canonical {
		return nil
	}
	return &tools[j]
}

// appendSchema appends the search tool's parameter schema. namespaces is
// offered only when the catalog has more than one product, with their IDs
// as its enum.
func appendSchema(dst []byte, cat *catalog.Catalog) []byte {
	dst = append(dst, `{"type":"object","properties":{"query":{"type":"string","description":"What the tool must do, in plain words (any language); or a tool's exact name, to load only that tool."},"subqueries":{"type":"array","items":{"type":"string"},"maxItems":`...)
	dst = jsonw.AppendInt(dst, wire.MaxSubqueries)
	dst = append(dst, `,"description":"For a task of several steps: one query per step; the results are merged."},"limit":{"type":"integer","minimum":1,"maximum":`...)
	dst = jsonw.AppendInt(dst, wire.MaxLimit)
	dst = append(dst, `,"description":"How many tools to load (default `...)
	dst = jsonw.AppendInt(dst, wire.DefaultLimit)
	dst = append(dst, `)."}`...)
	if len(cat.Products) > 1 {
		ids := make([]string, len(cat.Products))
		for i := range cat.Products {
			ids[i] = cat.Products[i].ID
		}
		dst = append(dst, `,"namespaces":{"type":"array","items":{"type":"string","enum":`...)
		dst = jsonw.AppendStrings(dst, ids, true)
		dst = append(dst, `},"description":"Only tools in these namespaces."}`...)
	}
	dst = append(dst, `,"effects":{"type":"array","items":{"type":"string","enum":["read","write","destructive"]},"description":"Only tools with these effects."}},"required":["query"],"additionalProperties":false}`...)
	return dst
}

// searchToolDescription is the search tool's description: what it searches
// and how to ask.
func searchToolDescription(cat *catalog.Catalog) string {
	n := cat.ToolCount()
	noun := "tools"
	if n == 1 {
		noun = "tool"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Search %d deferred %s and load the definitions of the best matches, ranked. ", n, noun)
	b.WriteString("Describe the task in plain words, or give a tool's exact name to load only that tool; ")
	b.WriteString("filter by namespace or effect (read, write, destructive) when you know them. ")
	b.WriteString("Search again when a step needs a tool that is not loaded.")
	return b.String()
}

// withinBudget keeps the best tools whose definitions fit: render(kept) is
// the JSON array a provider receives, and tools are taken in rank order
// while the array stays at most budget tokens (bytes/4, rounded up). The
// first tool that does not fit ends the list, so that what is loaded is
// always a prefix of the ranking (a lower-ranked tool never stands in for
// a better one that was too large). allow, when not nil, may refuse a
// prefix too (a session's caps).
func withinBudget(tools []*catalog.Tool, budget int, render func(dst []byte, kept []*catalog.Tool) ([]byte, error), allow func(kept []*catalog.Tool) (bool, error)) ([]*catalog.Tool, []byte, error) {
	out, err := render(nil, nil)
	if err != nil {
		return nil, nil, err
	}
	for n := 1; n <= len(tools); n++ {
		rendered, err := render(nil, tools[:n])
		if err != nil {
			return nil, nil, err
		}
		fits := tokens(len(rendered)) <= budget
		if fits && allow != nil {
			if fits, err = allow(tools[:n]); err != nil {
				return nil, nil, err
			}
		}
		if !fits {
			return tools[:n-1], out, nil
		}
		out = rendered
	}
	return tools, out, nil
}

func tokens(n int) int { return (n + bytesPerToken - 1) / bytesPerToken }

// description is what a derived definition says of a tool.
func description(t *catalog.Tool) string {
	if t.Description != "" {
		return t.Description
	}
	if t.Selection.AgentSummary != "" {
		return t.Selection.AgentSummary
	}
	return t.Title
}

// inputSchema is the tool's JSON Schema, or an empty object schema for a
// tool without one (a DWS command, whose flags are no JSON Schema).
func inputSchema(t *catalog.Tool) []byte {
	if len(t.InputSchema) > 0 {
		return t.InputSchema
	}
	return []byte(`{"type":"object","properties":{}}`)
}

// original returns t's kept definition when the catalog came from format,
// after checking it is one JSON object (a snapshot is data: a damaged one
// must not make the output invalid), under name when the tool is shown
// under another name than its own.
func original(cat *catalog.Catalog, t *catalog.Tool, format, name string) ([]byte, error) {
	if cat.Format != format || len(t.Original) == 0 {
		return nil, nil
	}
	if t.Original[0] != '{' || !json.Valid(t.Original) {
		return nil, wire.Validation("invalid_snapshot", fmt.Sprintf("the stored definition of %q is not a JSON object", t.Identity.CanonicalPath))
	}
	if name == t.Identity.Name {
		return t.Original, nil
	}
	renamed, err := withName(t.Original, name)
	if err != nil {
		return nil, wire.Validation("invalid_snapshot", fmt.Sprintf("the stored definition of %q: %v", t.Identity.CanonicalPath, err))
	}
	return renamed, nil
}
