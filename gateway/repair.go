package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK decodes a tools/list answer whole: one tool with a wrongly typed
// detail ("readOnlyHint": "yes", a numeric title) fails the decode, and
// with it the server's whole list. The gateway repairs the raw answer
// before the SDK sees it: a mistyped annotation or optional field is
// dropped (the tool stays, its annotations then say nothing, so the guard
// treats it as it treats a tool without them), a tool that cannot be read
// even so (no string name) is dropped, and every change is logged under
// the server's name. Over stdio the repair sits in a wrapping connection;
// over HTTP in the response body (the SDK's HTTP connection cannot be
// wrapped: it relies on methods of its own type).

// repairToolsResult repairs the result of a tools/list answer. It returns
// the result unchanged (and no notes) when every tool decodes.
func repairToolsResult(result json.RawMessage) (json.RawMessage, []string) {
	var probe mcp.ListToolsResult
	if json.Unmarshal(result, &probe) == nil {
		return result, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(result, &fields) != nil {
		return result, nil // not an object: nothing a repair could save
	}
	var tools []json.RawMessage
	if json.Unmarshal(fields["tools"], &tools) != nil {
		return result, nil
	}
	var notes []string
	kept := make([]json.RawMessage, 0, len(tools))
	for i, raw := range tools {
		fixed, toolNotes, ok := repairTool(raw)
		label := toolLabel(raw, i)
		for _, n := range toolNotes {
			notes = append(notes, label+": "+n)
		}
		if !ok {
			notes = append(notes, label+": left out (it cannot be read as a tool)")
			continue
		}
		kept = append(kept, fixed)
	}
	out, err := json.Marshal(kept)
	if err != nil {
		return result, nil
	}
	fields["tools"] = out
	// Other mistyped fields of the result (a numeric nextCursor) are
	// dropped the same way.
	for _, k := range sortedRawKeys(fields) {
		if !decodesAs[mcp.ListToolsResult](k, fields[k]) {
			delete(fields, k)
			notes = append(notes, fmt.Sprintf("result field %q dropped (wrong type)", k))
		}
	}
	repaired, err := json.Marshal(fields)
	if err != nil {
		return result, nil
	}
	return repaired, notes
}

// repairTool drops what keeps one tool from decoding.
func repairTool(raw json.RawMessage) (json.RawMessage, []string, bool) {
	var tool mcp.Tool
	if json.Unmarshal(raw, &tool) == nil {
		return raw, nil, true
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil, nil, false
	}
	var notes []string
	if a, ok := fields["annotations"]; ok && !decodesAs[mcp.Tool]("annotations", a) {
		var hints map[string]json.RawMessage
		if json.Unmarshal(a, &hints) != nil {
			delete(fields, "annotations")
			notes = append(notes, "annotations dropped (not an object)")
		} else {
			for _, k := range sortedRawKeys(hints) {
				if !decodesAs[mcp.ToolAnnotations](k, hints[k]) {
					delete(hints, k)
					notes = append(notes, fmt.Sprintf("annotation %q dropped (wrong type)", k))
				}
			}
			fields["annotations"], _ = json.Marshal(hints)
		}
	}
	for _, k := range sortedRawKeys(fields) {
		if k == "name" {
			continue // a tool without a readable name cannot be called
		}
		if !decodesAs[mcp.Tool](k, fields[k]) {
			delete(fields, k)
			notes = append(notes, fmt.Sprintf("field %q dropped (wrong type)", k))
		}
	}
	fixed, err := json.Marshal(fields)
	if err != nil || json.Unmarshal(fixed, &tool) != nil || tool.Name == "" {
		return nil, notes, false
	}
	return fixed, notes, true
}

// decodesAs reports whether {key: value} decodes into a T.
func decodesAs[T any](key string, value json.RawMessage) bool {
	doc, err := json.Marshal(map[string]json.RawMessage{key: value})
	if err != nil {
		return false
	}
	var v T
	return json.Unmarshal(doc, &v) == nil
}

// toolLabel names a tool in a note: its name when it has a string one,
// else its position.
func toolLabel(raw json.RawMessage, i int) string {
	var named struct {
		Name any `json:"name"`
	}
	if json.Unmarshal(raw, &named) == nil {
		if s, ok := named.Name.(string); ok && s != "" {
			return fmt.Sprintf("tool %q", cleanText(s))
		}
	}
	return fmt.Sprintf("tool #%d", i+1)
}

func sortedRawKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// logRepairs reports the changes a repair made, one log line an answer.
func logRepairs(log *slog.Logger, notes []string) {
	if len(notes) > 0 {
		log.Warn("tools/list repaired: the server listed tools the SDK could not decode", "changes", notes)
	}
}

// repairMessage repairs a JSON-RPC response carrying a tools/list result;
// any other message comes back unchanged.
func repairMessage(data []byte, log *slog.Logger) []byte {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return data
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Result == nil {
		return data
	}
	result, notes := repairToolsResult(resp.Result)
	if notes == nil {
		return data
	}
	resp.Result = result
	out, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return data
	}
	logRepairs(log, notes)
	return out
}

// repairingTransport wraps a stdio transport's connection (repairConn).
type repairingTransport struct {
	mcp.Transport
	log *slog.Logger
}

func (t *repairingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &repairConn{Connection: conn, log: t.log, listing: map[jsonrpc.ID]bool{}}, nil
}

// repairConn notes the IDs of the tools/list requests it writes and
// repairs the responses to them it reads.
type repairConn struct {
	mcp.Connection
	log     *slog.Logger
	mu      sync.Mutex
	listing map[jsonrpc.ID]bool
}

func (c *repairConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.ID.IsValid() {
		c.mu.Lock()
		c.listing[req.ID] = true
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *repairConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok {
		return msg, err
	}
	c.mu.Lock()
	listing := c.listing[resp.ID]
	delete(c.listing, resp.ID)
	c.mu.Unlock()
	if listing && resp.Result != nil {
		var notes []string
		resp.Result, notes = repairToolsResult(resp.Result)
		logRepairs(c.log, notes)
	}
	return msg, nil
}

// isToolsList reports whether an HTTP request of the SDK's client posts a
// tools/list request. The SDK posts a bytes body, so GetBody gives a copy
// to read without touching the request.
func isToolsList(req *http.Request) (bool, error) {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return false, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return false, err
	}
	defer body.Close()
	// A tools/list request holds a cursor at most: a larger body (a
	// tools/call's arguments) is not one, and is not copied whole.
	const maxListRequest = 64 << 10
	data, err := io.ReadAll(io.LimitReader(body, maxListRequest+1))
	if err != nil {
		return false, err
	}
	if len(data) > maxListRequest {
		return false, nil
	}
	var head struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(data, &head) == nil && head.Method == "tools/list", nil
}

// repairHTTPResponse repairs the answer to a tools/list POST: a JSON body
// read whole (it is capped), or an event stream event by event.
func repairHTTPResponse(resp *http.Response, eventStream bool, log *slog.Logger) {
	if !eventStream {
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			resp.Body = io.NopCloser(&failingReader{err: err})
			return
		}
		fixed := repairMessage(body, log)
		resp.Body = io.NopCloser(bytes.NewReader(fixed))
		resp.ContentLength = int64(len(fixed))
		resp.Header.Del("Content-Length")
		return
	}
	original := resp.Body
	pr, pw := io.Pipe()
	go func() {
		err := repairEvents(original, pw, log)
		_ = original.Close()
		_ = pw.CloseWithError(err)
	}()
	resp.Body = &pipedBody{PipeReader: pr, original: original}
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
}

type failingReader struct{ err error }

func (r *failingReader) Read([]byte) (int, error) { return 0, r.err }

// pipedBody closes the original body too, so that the goroutine copying
// from it ends when the SDK stops reading.
type pipedBody struct {
	*io.PipeReader
	original io.Closer
}

func (b *pipedBody) Close() error {
	_ = b.original.Close()
	return b.PipeReader.Close()
}

// maxEventBytes bounds one event the repair holds, as the SDK does.
const maxEventBytes = mcp.DefaultMaxEventSize

var errEventTooLarge = errors.New("an event of the stream is larger than the gateway reads")

// repairEvents copies a server-sent event stream, each event whose data
// is a tools/list answer repaired (its data then on one line).
func repairEvents(r io.Reader, w io.Writer, log *slog.Logger) error {
	reader := bufio.NewReader(r)
	var lines [][]byte // the lines of the event being read, as written
	size := 0
	for {
		line, err := reader.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it whole, within the event's bound.
			full := bytes.Clone(line)
			for errors.Is(err, bufio.ErrBufferFull) {
				if len(full) > maxEventBytes {
					return errEventTooLarge
				}
				line, err = reader.ReadSlice('\n')
				full = append(full, line...)
			}
			line = full
		} else {
			line = bytes.Clone(line)
		}
		if len(line) > 0 {
			size += len(line)
			if size > maxEventBytes {
				return errEventTooLarge
			}
			lines = append(lines, line)
		}
		blank := len(bytes.TrimRight(line, "\r\n")) == 0 && len(line) > 0
		if blank || (err != nil && len(lines) > 0) {
			if werr := writeEvent(w, lines, log); werr != nil {
				return werr
			}
			lines, size = lines[:0], 0
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// writeEvent writes one event, repaired when its data is a tools/list
// answer that needed it.
func writeEvent(w io.Writer, lines [][]byte, log *slog.Logger) error {
	var data [][]byte
	for _, l := range lines {
		if v, ok := bytes.CutPrefix(bytes.TrimRight(l, "\r\n"), []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(v, []byte(" ")))
		}
	}
	joined := bytes.Join(data, []byte("\n"))
	fixed := joined
	if len(data) > 0 {
		fixed = repairMessage(joined, log)
	}
	var out bytes.Buffer
	if bytes.Equal(fixed, joined) {
		for _, l := range lines {
			out.Write(l)
		}
	} else {
		wrote := false
		for _, l := range lines {
			if bytes.HasPrefix(l, []byte("data:")) {
				if !wrote {
					out.WriteString("data: ")
					out.Write(fixed)
					out.WriteString("\n")
					wrote = true
				}
				continue
			}
			out.Write(l)
		}
	}
	_, err := w.Write(out.Bytes())
	return err
}
