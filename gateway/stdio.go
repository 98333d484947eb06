package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's stdio transport ends the session on the first line it cannot
// decode ("hello", [], 42, "jsonrpc": "1.0", nesting deeper than its 1,000
// levels, trailing garbage, a line over its 16 MiB), and with the session
// the gateway and every downstream server. JSON-RPC asks for an error
// response instead (-32700 parse error, -32600 invalid request, with id
// null) and the session goes on. ServeStdio therefore reads the client's
// lines itself: a line the SDK would accept is passed on unchanged, any
// other is answered here and dropped.

// MaxClientLine bounds one line (one JSON-RPC message) a stdio client
// sends; the SDK's own bound.
const MaxClientLine = mcp.DefaultMaxLineLength

// maxClientDepth is the SDK's bound on JSON nesting: a deeper message
// would end its session.
const maxClientDepth = 1000

// ServeStdio serves one MCP session over r and w (the process's stdin and
// stdout) until the client disconnects or ctx ends. A malformed line gets
// a JSON-RPC error and the session continues.
func (g *Gateway) ServeStdio(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	out := &lockedWriter{w: w}
	pr, pw := io.Pipe()
	go func() {
		_ = pw.CloseWithError(filterLines(r, pw, out))
	}()
	err := g.server.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: out})
	_ = pr.Close() // unblocks the filter if the session ended first
	return err
}

// lockedWriter serialises the SDK's writes and the filter's error answers,
// each of which is one Write of a whole line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Close()
}

// filterLines copies the valid lines of r to pass and answers the others
// on out, until r ends (nil) or pass or out fails.
func filterLines(r io.Reader, pass io.Writer, out io.Writer) error {
	reader := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(reader)
		// A byte-order mark (some Windows tools write one before their
		// first line) is no part of the message.
		line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		if len(bytes.TrimSpace(line)) > 0 || tooLong { // a blank line is no message
			if reply := checkLine(line, tooLong); reply != nil {
				if _, werr := out.Write(reply); werr != nil {
					return werr
				}
			} else if _, werr := pass.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line without its line ending. A line longer than
// MaxClientLine is read to its end and thrown away (tooLong), so that
// memory stays bounded and the next line is read from its start.
func readLine(reader *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		piece, err := reader.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(piece) > MaxClientLine+2 {
				line, tooLong = nil, true
			} else {
				line = append(line, piece...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// checkLine is the error answer to a line the SDK would not accept, or nil
// for one it would (or a blank line, which is skipped).
func checkLine(line []byte, tooLong bool) []byte {
	trimmed := bytes.TrimSpace(line)
	switch {
	case tooLong:
		return rpcError(jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", MaxClientLine))
	case len(trimmed) == 0:
		return nil
	case nestingDepth(trimmed) > maxClientDepth:
		return rpcError(jsonrpc.CodeParseError, fmt.Sprintf("JSON nested deeper than %d levels", maxClientDepth))
	case !json.Valid(trimmed):
		return rpcError(jsonrpc.CodeParseError, "not one JSON value on one line (newline-delimited JSON-RPC)")
	case trimmed[0] == '[':
		// Batches left JSON-RPC in MCP 2025-06-18, and the SDK ends the
		// session on one under that version or later.
		return rpcError(jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported")
	case trimmed[0] != '{':
		return rpcError(jsonrpc.CodeInvalidRequest, "a JSON-RPC message is a JSON object")
	}
	if _, err := jsonrpc.DecodeMessage(trimmed); err != nil {
		return rpcError(jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 request, notification or response: "+cleanText(err.Error()))
	}
	return nil
}

// rpcError is a JSON-RPC error response with id null, as a line.
func rpcError(code int64, message string) []byte {
	body, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return append(body, '\n')
}

// nestingDepth is the deepest nesting of objects and arrays in data, as
// the SDK counts it (brackets outside strings).
func nestingDepth(data []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > deepest {
				deepest = depth
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return deepest
}
