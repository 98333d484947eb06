package jsonread

import "fmt"

// ToolList reads the list of tool definitions at the top of an OpenAI or
// Anthropic catalog: a JSON array of tools, or an object whose "tools"
// field is one (a request body, say; its other fields are ignored).
func ToolList(data []byte) ([]any, error) {
	value, err := Decode(data)
	if err != nil {
		return nil, err
	}
	switch v := value.(type) {
	case []any:
		return v, nil
	case map[string]any:
		tools, ok := v["tools"].([]any)
		if !ok {
			return nil, fmt.Errorf(`field "tools": want an array of tool definitions, got %s`, TypeName(v["tools"]))
		}
		return tools, nil
	}
	return nil, fmt.Errorf(`want an array of tool definitions or an object with "tools", got %s`, TypeName(value))
}
