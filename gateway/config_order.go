package gateway

import (
	"bytes"
	"encoding/json"
	"strings"
)

// fileOrder is the server names of a config file in the order the file
// lists them. encoding/json reads an object into a map, which has no order,
// so the order is read from the tokens. The top-level key is matched as
// encoding/json matches a struct field (case-insensitively), so that both
// read the same object; a name given twice keeps its first place. A file
// ParseConfig accepted always reads; nil means it did not.
func fileOrder(data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var found map[string][]string // "mcpservers" / "servers" → names, the last object given of each (as encoding/json keeps)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		folded := strings.ToLower(key)
		if folded != "mcpservers" && folded != "servers" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		names, ok := objectKeys(dec)
		if !ok {
			return nil
		}
		if found == nil {
			found = map[string][]string{}
		}
		found[folded] = names
	}
	if names, ok := found["mcpservers"]; ok {
		return names
	}
	return found["servers"]
}

// objectKeys reads one object value from dec and returns its keys in order,
// each once.
func objectKeys(dec *json.Decoder) ([]string, bool) {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var names []string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		name, _ := tok.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil, false
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	_, err := dec.Token() // the closing brace
	return names, err == nil
}
