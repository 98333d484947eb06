package hostapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolsift/toolsift/core/wire"
)

// Errors: a typed failure, one the module (or the native core) answered, or
// the host for a request over the module's max_request_bytes before the
// module sees it, is a *wire.Error returned as error (errors.As(err, &werr)
// reaches it): Category is "validation" (Code 3, the caller's fault),
// "discovery" (Code 6, the catalog is not what the caller expected) or
// "internal" (Code 5); Reason is the stable machine-readable code (for
// example "invalid_limit", "catalog_changed", "invalid_snapshot"); Message
// is for people. Such an error never means the instance failed: the engine
// keeps serving. Any other error is the host's (a trap, a done context,
// ErrClosed).

// ErrClosed is returned by calls on an Engine after Close (and by calls that
// were in flight when Close ran).
var ErrClosed = errors.New("toolsift: engine closed")

// abiError is a module that broke the ABI contract (a malformed result, a
// missing export): the instance is discarded.
type abiError struct{ msg string }

func (e *abiError) Error() string { return "toolsift: module broke the ABI: " + e.msg }

func abiErrorf(format string, args ...any) error {
	return &abiError{msg: fmt.Sprintf(format, args...)}
}

// decodeModuleError parses the status-1 payload
// {"error":{"category","code","message","reason"}}.
func decodeModuleError(payload []byte) error {
	var doc struct {
		Error *struct {
			Category string `json:"category"`
			Code     int    `json:"code"`
			Message  string `json:"message"`
			Reason   string `json:"reason"`
		} `json:"error"`
	}
	if err := json.Unmarshal(payload, &doc); err != nil || doc.Error == nil || doc.Error.Category == "" {
		return abiErrorf("error result is not {\"error\":{…}}: %q", clip(payload, 200))
	}
	return &wire.Error{Category: doc.Error.Category, Code: doc.Error.Code, Reason: doc.Error.Reason, Message: doc.Error.Message}
}

// finish decorates the outcome of one operation: a done context wins (the
// error wraps ctx.Err(), so errors.Is(err, context.DeadlineExceeded) holds),
// a typed module error is returned as is, anything else (a trap, an ABI
// violation) is wrapped with the operation's name and the start of the
// instance's stderr.
func finish(ctx context.Context, op string, err error, stderr string) error {
	if cerr := ctx.Err(); cerr != nil {
		if err == nil || err == cerr {
			return fmt.Errorf("toolsift: %s: %w", op, cerr)
		}
		return fmt.Errorf("toolsift: %s: %w: %w", op, cerr, err)
	}
	if err == nil {
		return nil
	}
	var typed *wire.Error
	if errors.As(err, &typed) || errors.Is(err, ErrClosed) {
		return err
	}
	if stderr = strings.TrimSpace(stderr); stderr != "" {
		return fmt.Errorf("toolsift: %s: %w (module stderr: %s)", op, err, stderr)
	}
	return fmt.Errorf("toolsift: %s: %w", op, err)
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// head keeps the first stderrHead bytes the module writes to stderr, so that
// a trap (a Go runtime fatal error in the module, whose first line says why)
// can be reported. The module writes nothing there in normal operation, and
// nothing written there ever reaches an answer.
type head struct {
	buf       []byte
	truncated bool
}

const stderrHead = 512

func (h *head) Write(p []byte) (int, error) {
	room := stderrHead - len(h.buf)
	if len(p) > room {
		h.truncated = true
		h.buf = append(h.buf, p[:max(room, 0)]...)
	} else {
		h.buf = append(h.buf, p...)
	}
	return len(p), nil
}

func (h *head) String() string {
	if h == nil || len(h.buf) == 0 {
		return ""
	}
	if h.truncated {
		return string(h.buf) + "…"
	}
	return string(h.buf)
}
