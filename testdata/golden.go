package testdata

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/dws"
)

// DWS returns the DWS catalog, imported once per process and shared: callers
// must not modify it.
var DWS = sync.OnceValues(func() (*catalog.Catalog, error) {
	files, err := dws.FilesFromTarGz(DWSCatalog)
	if err != nil {
		return nil, err
	}
	return dws.Import(files)
})

// GoldenLine is one reference vector: a request and either the exact wire
// bytes the reference answered or the typed error it gave.
type GoldenLine struct {
	Set          string          `json:"set"`
	Case         string          `json:"case"`
	Request      json.RawMessage `json:"request"`
	WireResponse *string         `json:"wire_response"`
	Error        *GoldenError    `json:"error"`
}

// GoldenError is the reference's typed error: the category and the reason
// code (empty where the reference gave none).
type GoldenError struct {
	Category string `json:"category"`
	Reason   string `json:"reason"`
}

// GoldenLines reads every line of dws/golden/<name> (JSONL, gzip'd when the
// name ends in .gz).
func GoldenLines(name string) ([]GoldenLine, error) {
	data, err := ReadGolden(name)
	if err != nil {
		return nil, err
	}
	var lines []GoldenLine
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for scanner.Scan() {
		var line GoldenLine
		if err := json.Unmarshal(scanner.Bytes(), &line); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, len(lines)+1, err)
		}
		lines = append(lines, line)
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s has no lines", name)
	}
	return lines, nil
}

// SearchRequest returns the line's request as a tool-search.v1 request: the
// reference's command line adds "version", which the recorded request lacks.
func (l GoldenLine) SearchRequest() ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(l.Request, &fields); err != nil {
		return nil, err
	}
	fields["version"] = json.RawMessage(`"tool-search.v1"`)
	return json.Marshal(fields)
}
