package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// YAML limits. A YAML document is parsed into go.yaml.in/yaml/v3's node
// tree, whose aliases are references to one node each; it is then turned
// into the values jsonread gives for JSON, and that is where an alias would
// be copied. So the copying is bounded here, not by the parser:
//
//   - the values built inside aliases are bounded by the input's size in
//     bytes (plus 64 Ki): a "billion laughs" document (each level an alias
//     list of the one below) stops at the bound with an error, after work
//     and memory proportional to its size. Values outside aliases need a
//     byte of input each, so the document's values are at most about twice
//     its bytes (and at most maxYAMLValues);
//   - maxYAMLDepth bounds nesting, also through aliases (an alias of an
//     ancestor, a cycle, is refused outright).
//
// The parser itself refuses more than 10,000 levels of indentation or flow
// nesting while it scans, so its own recursion is bounded before the node
// tree is built; its memory is proportional to the input.
const (
	maxYAMLValues = 4 << 20
	maxYAMLDepth  = 256
)

// errYAMLTooLarge is returned for a document over maxYAMLValues.
var errYAMLTooLarge = errors.New("not a usable YAML document: too many values once aliases are expanded (more than its size in bytes)")

// decodeYAML reads one YAML document into JSON-like values:
// map[string]any, []any, string, json.Number, bool and nil.
func decodeYAML(data []byte) (value any, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	if doc.Kind == 0 { // empty input
		return nil, errors.New("not valid YAML: the document is empty")
	}
	c := yamlConverter{aliasLimit: len(data) + 64<<10}
	return c.value(&doc, 0)
}

type yamlConverter struct {
	values     int
	aliased    int // values built inside aliases
	aliasLimit int
	active     []*yaml.Node // the aliases being expanded, to refuse a cycle
}

func (c *yamlConverter) value(n *yaml.Node, depth int) (any, error) {
	if c.values++; c.values > maxYAMLValues {
		return nil, errYAMLTooLarge
	}
	if len(c.active) > 0 {
		if c.aliased++; c.aliased > c.aliasLimit {
			return nil, errYAMLTooLarge
		}
	}
	if depth > maxYAMLDepth {
		return nil, fmt.Errorf("line %d: nested more than %d levels deep", n.Line, maxYAMLDepth)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], depth)
	case yaml.AliasNode:
		for _, a := range c.active {
			if a == n.Alias {
				return nil, fmt.Errorf("line %d: alias *%s refers to a node that contains it", n.Line, n.Value)
			}
		}
		c.active = append(c.active, n.Alias)
		v, err := c.value(n.Alias, depth+1)
		c.active = c.active[:len(c.active)-1]
		return v, err
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := c.value(item, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		if err := c.mapping(out, n, depth); err != nil {
			return nil, err
		}
		return out, nil
	case yaml.ScalarNode:
		return scalar(n)
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

// mapping adds n's pairs to out. Merge keys ("<<: *base") add the merged
// mapping's pairs that out does not set itself, as YAML 1.1 says; a key
// given twice is refused (JSON has no meaning for it either).
func (c *yamlConverter) mapping(out map[string]any, n *yaml.Node, depth int) error {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		key, err := c.key(k)
		if err != nil {
			return err
		}
		if _, dup := out[key]; dup {
			return fmt.Errorf("line %d: key %q appears twice", k.Line, key)
		}
		value, err := c.value(v, depth+1)
		if err != nil {
			return err
		}
		out[key] = value
	}
	for _, m := range merges {
		sources := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			sources = m.Content
		}
		for _, src := range sources {
			merged, err := c.value(src, depth+1)
			if err != nil {
				return err
			}
			object, ok := merged.(map[string]any)
			if !ok {
				return fmt.Errorf("line %d: a merge key (<<) needs a mapping", m.Line)
			}
			for k, v := range object {
				if _, set := out[k]; !set {
					out[k] = v
				}
			}
		}
	}
	return nil
}

// key turns a mapping key into a string: OpenAPI's keys are strings, but
// YAML reads `200:` as an integer, so a scalar key keeps its text.
func (c *yamlConverter) key(k *yaml.Node) (string, error) {
	for k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("line %d: a mapping key must be a scalar", k.Line)
	}
	return k.Value, nil
}

// scalar resolves a plain or quoted scalar as YAML's core schema does.
// Numbers become json.Number in JSON's syntax (0x1F → 31); values JSON
// cannot hold (.inf, .nan) and timestamps keep their text.
func scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		return b, nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return json.Number(strconv.FormatInt(i, 10)), nil
		}
		var u uint64
		if err := n.Decode(&u); err == nil {
			return json.Number(strconv.FormatUint(u, 10)), nil
		}
		return n.Value, nil // beyond 64 bits: keep the text
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return n.Value, nil
		}
		if isJSONNumber(n.Value) {
			return json.Number(n.Value), nil
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case "!!binary":
		return n.Value, nil // base64 text, as JSON would carry it
	}
	return n.Value, nil // !!str, !!timestamp and unknown tags: the text
}

// isJSONNumber reports whether s is already a number in JSON's syntax.
func isJSONNumber(s string) bool {
	if s == "" || strings.HasPrefix(s, "+") {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}
