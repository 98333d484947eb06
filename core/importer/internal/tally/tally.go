// Package tally counts what an import read, used, ignored and skipped, so
// that nothing an importer leaves out goes unsaid. Importers record into a
// Tally as they decode; package importer turns it into the sorted report a
// snapshot stores.
package tally

import (
	"maps"
	"slices"
)

// MaxListed bounds how many skipped tools are listed by name; the count
// covers all of them.
const MaxListed = 20

// Skip is one tool left out of the catalog and why.
type Skip struct {
	Tool   string // the tool's original id or name and where it was
	Reason string
}

// Field is how often a source field was present on a tool, and how often
// of those its value reached no catalog field; To names where it went (a
// catalog field, "extra", or "dropped: why"), each once, in the order first
// seen.
type Field struct {
	Name    string
	Used    int
	Ignored int
	To      []string
}

// Repair is a malformed value an import coerced or dropped while keeping its
// tool (a lenient import): how often, under one field, and the first case.
type Repair struct {
	Field   string
	Count   int
	Example string
}

// Roles a source field can go to, besides the catalog's own field names.
const (
	ToExtra      = "extra"                     // the tool's catch-all text
	ToNowhere    = "dropped: not language"     // URLs, ids, hashes, numbers (native.NotLanguage)
	ToNoneOfThem = "dropped: no text to index" // booleans, numbers, empty values
	ToHowToCall  = "dropped: how to call it"   // "strict", "defer_loading", "cache_control", "type"
)

// Tally collects the counts of one import. A nil *Tally is a strict tally
// that counts nothing, so that code paths without a report stay simple.
type Tally struct {
	Strict bool
	// Checkpoint, when not nil, is called for each tool read and each tool
	// built (importer.Options.Checkpoint says why).
	Checkpoint func()
	read       int
	skipped    int
	listed     []Skip
	fields     map[string]*Field // looked up by name only; Fields sorts
	repairs    map[string]*Repair
}

// New returns an empty tally; strict makes Skip refuse instead of skip.
func New(strict bool) *Tally {
	return &Tally{Strict: strict, fields: map[string]*Field{}, repairs: map[string]*Repair{}}
}

// Read counts one tool entry of the input, at a checkpoint.
func (t *Tally) Read() {
	if t != nil {
		t.read++
		t.Tick()
	}
}

// Tick calls the checkpoint, if there is one.
func (t *Tally) Tick() {
	if t != nil && t.Checkpoint != nil {
		t.Checkpoint()
	}
}

// Skip leaves one tool out: it returns err when the tally is strict (or
// nil), so that the import stops as it always did, and otherwise records the
// tool and returns nil.
func (t *Tally) Skip(tool string, err error) error {
	if t == nil || t.Strict {
		return err
	}
	t.skipped++
	if len(t.listed) < MaxListed {
		t.listed = append(t.listed, Skip{Tool: tool, Reason: err.Error()})
	}
	return nil
}

// Use counts a field that was present and whose value reached the catalog.
func (t *Tally) Use(field string) {
	if t != nil {
		t.field(field).Used++
	}
}

// UseAs counts a field whose value reached the catalog field role.
func (t *Tally) UseAs(field, role string) {
	if t != nil {
		f := t.field(field)
		f.Used++
		f.to(role)
	}
}

// Also records that some of a counted field's words went to role too (an
// input schema's to "extra"), without counting the field again.
func (t *Tally) Also(field, role string) {
	if t != nil {
		t.field(field).to(role)
	}
}

// Ignore counts a field that was present and left out.
func (t *Tally) Ignore(field string) {
	if t != nil {
		t.field(field).Ignored++
	}
}

// IgnoreAs counts a field left out, and why (ToNowhere, ToNoneOfThem).
func (t *Tally) IgnoreAs(field, why string) {
	if t != nil {
		f := t.field(field)
		f.Ignored++
		f.to(why)
	}
}

// Repair handles a malformed value that need not cost its tool: a strict
// (or nil) tally returns err, so that the import refuses it as it always
// did; any other counts it under field, keeps the first example (err's
// text) and returns nil, and the importer coerces or drops the value.
func (t *Tally) Repair(field string, err error) error {
	if t == nil || t.Strict {
		return err
	}
	r, ok := t.repairs[field]
	if !ok {
		r = &Repair{Field: field, Example: err.Error()}
		t.repairs[field] = r
	}
	r.Count++
	return nil
}

// Lenient reports whether Repair keeps tools (a tally that is not strict).
func (t *Tally) Lenient() bool { return t != nil && !t.Strict }

// Repairs lists the repairs in field order.
func (t *Tally) Repairs() []Repair {
	if t == nil {
		return nil
	}
	out := make([]Repair, 0, len(t.repairs))
	for _, field := range slices.Sorted(maps.Keys(t.repairs)) {
		out = append(out, *t.repairs[field])
	}
	return out
}

func (f *Field) to(role string) {
	// A field goes to one or two places: a scan, not a set.
	if !slices.Contains(f.To, role) {
		f.To = append(f.To, role)
	}
}

// Keys counts every key of object under prefix ("doc." say): a key in used
// is used, any other is ignored. Null values and empty strings count as
// absent: they say nothing to lose.
func (t *Tally) Keys(prefix string, object map[string]any, used ...string) {
	if t == nil {
		return
	}
	for _, key := range slices.Sorted(maps.Keys(object)) {
		if object[key] == nil || object[key] == "" {
			continue
		}
		if slices.Contains(used, key) {
			t.Use(prefix + key)
		} else {
			t.Ignore(prefix + key)
		}
	}
}

func (t *Tally) field(name string) *Field {
	f, ok := t.fields[name]
	if !ok {
		f = &Field{Name: name}
		t.fields[name] = f
	}
	return f
}

// ToolsRead is the number of tool entries counted by Read.
func (t *Tally) ToolsRead() int {
	if t == nil {
		return 0
	}
	return t.read
}

// Skipped returns the number of skipped tools and the first MaxListed.
func (t *Tally) Skipped() (int, []Skip) {
	if t == nil {
		return 0, nil
	}
	return t.skipped, t.listed
}

// Fields lists the counted fields in name order.
func (t *Tally) Fields() []Field {
	if t == nil {
		return nil
	}
	out := make([]Field, 0, len(t.fields))
	for _, name := range slices.Sorted(maps.Keys(t.fields)) {
		f := *t.fields[name]
		f.To = slices.Clone(f.To)
		slices.Sort(f.To) // the order first seen depends on the input's
		out = append(out, f)
	}
	return out
}
