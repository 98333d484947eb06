// Package evalset prepares what `wasmhost eval` ranks and judges against:
// the catalog of a benchmark or of a stored snapshot, the snapshot to serve
// (re-indexed under another profile, or without the use_when sentences the
// DWS proxy asks), and the tools' identities and selection sentences. It is
// the evaluation's one door into the core; the searches themselves go
// through hostapi, as any host's do, with the engine the caller chose.
package evalset

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/beir"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
)

// BEIRFormat is the catalog format of a BEIR benchmark's corpus.jsonl.
const BEIRFormat = beir.Format

// Tool is what an evaluation reads of one tool.
type Tool struct {
	CanonicalPath string
	Name          string
	Description   string
	UseWhen       []string
	AvoidWhen     []string
}

// Skipped is a tool the import left out, and why.
type Skipped struct {
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
}

// Catalog is a catalog to evaluate: imported from a benchmark's corpus, or
// read from a stored snapshot.
type Catalog struct {
	cat        *catalog.Catalog
	ownProfile *profile.Profile // the format's (import) or the snapshot's; nil if this build does not know it
	stored     []byte           // the stored snapshot, served as it is when nothing changes
	skipped    []Skipped
}

// Import imports catalog bytes as `wasmhost snapshot build` does by
// default: a tool that does not import (two names equal but for case, say)
// is skipped and listed (Skipped), not the end of the evaluation.
func Import(format string, data []byte) (*Catalog, error) {
	cat, own, report, err := importer.ImportWith(format, data, importer.Options{})
	if err != nil {
		return nil, err
	}
	c := &Catalog{cat: cat, ownProfile: own}
	for _, s := range report.Skipped {
		c.skipped = append(c.skipped, Skipped{Tool: s.Tool, Reason: s.Reason})
	}
	return c, nil
}

// Decode reads the catalog of a stored snapshot; a snapshot that does not
// decode is a *wire.Error.
func Decode(stored []byte) (*Catalog, error) {
	body, err := snapshot.Decode(stored)
	if err != nil {
		return nil, err
	}
	own, _ := profile.Lookup(body.Profile)
	return &Catalog{cat: &body.Catalog, ownProfile: own, stored: stored}, nil
}

// Skipped lists the tools the import left out (the first
// importer.MaxListed); none for a stored snapshot.
func (c *Catalog) Skipped() []Skipped { return c.skipped }

// Tools lists the catalog's tools in catalog order, as imported (with their
// use_when sentences, whether or not Serve holds them out).
func (c *Catalog) Tools() []Tool {
	var tools []Tool
	for p := range c.cat.Products {
		for t := range c.cat.Products[p].Tools {
			tool := &c.cat.Products[p].Tools[t]
			tools = append(tools, Tool{
				CanonicalPath: tool.Identity.CanonicalPath, Name: tool.Identity.Name, Description: tool.Description,
				UseWhen: tool.Selection.UseWhen, AvoidWhen: tool.Selection.AvoidWhen,
			})
		}
	}
	return tools
}

// Serve returns the snapshot to evaluate the catalog with: indexed with the
// named profile ("" keeps the format's or the snapshot's own), and, when
// holdOut is asked and that profile indexes use_when, without the use_when
// sentences (heldOut says so): they are the DWS proxy's queries, and
// indexed they would be found by copying (generic-v2 scored R@1 99%). A
// stored snapshot that needs neither is served as it is (built false).
func (c *Catalog) Serve(profileName string, holdOut bool) (snap []byte, heldOut, built bool, err error) {
	p := c.ownProfile
	if profileName != "" {
		if p, err = lookup(profileName); err != nil {
			return nil, false, false, err
		}
	}
	if c.stored != nil && profileName == "" && !(holdOut && p != nil && p.IndexUseWhen) {
		return c.stored, false, false, nil
	}
	if p == nil {
		return nil, false, false, wire.Validation("unknown_profile", "the snapshot's profile is unknown to this build")
	}
	served := c.cat
	heldOut = holdOut && p.IndexUseWhen
	if heldOut {
		served = withoutUseWhen(c.cat)
	}
	snap, err = compile.Snapshot(served, p)
	if err != nil {
		return nil, false, false, fmt.Errorf("build snapshot with profile %s: %w", p.Name, err)
	}
	return snap, heldOut, true, nil
}

// withoutUseWhen is a copy of cat whose tools have no use_when sentences
// (the hashes are kept: they identify the catalog the sentences came from).
func withoutUseWhen(cat *catalog.Catalog) *catalog.Catalog {
	out := *cat
	out.Products = slices.Clone(cat.Products)
	for p := range out.Products {
		tools := slices.Clone(out.Products[p].Tools)
		for t := range tools {
			tools[t].Selection.UseWhen = nil
		}
		out.Products[p].Tools = tools
	}
	return &out
}

// Profiles lists the ranking profiles this build knows.
func Profiles() []string { return profile.Names() }

// CheckProfile refuses a profile name this build does not know.
func CheckProfile(name string) error {
	_, err := lookup(name)
	return err
}

func lookup(name string) (*profile.Profile, error) {
	p, ok := profile.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(profile.Names(), ", "))
	}
	return p, nil
}

// QueryBudget is the longest query, in characters and in UTF-8 bytes, that
// the named profile lets through the engine's validation (core/engine
// validate); the wire defaults for a profile this build does not know. The
// profile table is the engine's own: a snapshot opens only under a profile
// its engine knows, and the engines eval runs (native, or the module
// embedded in this build) share this build's table.
func QueryBudget(profileName string) (runes, bytes int) {
	p, ok := profile.Lookup(profileName)
	if !ok {
		return wire.MaxQueryRunes, wire.MaxQueryBytes
	}
	return p.QueryBudget()
}

// CorpusPath is the canonical path the tool with a BEIR corpus id gets
// ("server::tool" → "server.tool").
func CorpusPath(id string) string { return beir.CanonicalPath(id) }
