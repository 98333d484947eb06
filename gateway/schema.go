package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Arguments are checked against the tool's inputSchema before a call is
// forwarded, with github.com/santhosh-tekuri/jsonschema/v6 (drafts 4 to
// 2020-12; a schema without "$schema" is read as 2020-12, the MCP default).
//
// A schema that does not compile (a draft or keyword the validator refuses,
// a "$ref" to anything outside the schema itself) does not block the tool:
// the call is forwarded unchecked and the log says so once per definition.
// Validation protects a server from malformed arguments; the server that
// wrote a broken schema is the one that loses the check, and refusing its
// tool forever would turn one bad keyword into an outage. The validator
// never loads a URL or a file: every "$ref" outside the document fails the
// compile (a hostile schema cannot make the gateway read /etc/passwd or
// fetch a URL).

// toolSchema is one tool definition's compiled input schema, compiled on the
// first call (most tools are never called) and kept with the definition.
type toolSchema struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error // why it did not compile; the call goes on unchecked
	warned sync.Once
}

// noLoader refuses every URL the compiler asks for.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the gateway loads no schema from outside the tool's own (%s)", url)
}

// schemaLocation names the tool's schema inside the compiler; nothing is
// ever loaded from it.
const schemaLocation = "urn:toolsift:input-schema"

func compileSchema(inputSchema any) (*jsonschema.Schema, error) {
	if inputSchema == nil {
		return nil, nil
	}
	raw, err := json.Marshal(inputSchema)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaLocation, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaLocation)
}

// maxValidationMessage bounds the validator's message in an error result
// (a schema with thousands of alternatives explains each).
const maxValidationMessage = 2000

// validate checks arguments (an object, or empty for none) against the
// tool's schema. It returns the validation message, "" when they pass or
// cannot be checked; compiled is false when the schema did not compile.
func (s *toolSchema) validate(inputSchema any, arguments json.RawMessage) (message string, compiled bool) {
	s.once.Do(func() { s.schema, s.err = compileSchema(inputSchema) })
	if s.err != nil {
		return "", false
	}
	if s.schema == nil {
		return "", true
	}
	if len(bytes.TrimSpace(arguments)) == 0 || bytes.Equal(bytes.TrimSpace(arguments), []byte("null")) {
		arguments = json.RawMessage("{}") // what the server receives as no arguments
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(arguments))
	if err != nil {
		return "arguments: " + err.Error(), true
	}
	err = s.schema.Validate(value)
	if err == nil {
		return "", true
	}
	var verr *jsonschema.ValidationError
	msg := err.Error()
	if errors.As(err, &verr) {
		msg = verr.Error()
	}
	msg = strings.ReplaceAll(msg, schemaLocation, "inputSchema")
	if len(msg) > maxValidationMessage {
		msg = msg[:maxValidationMessage] + "…"
	}
	return msg, true
}
