// Package wire is the public contract: tool-search.v1 and schema-inspect.v1
// requests and responses, their strict decoders and exact encoders, the typed
// error object, and the budgets. Encoders write the same bytes as Go's
// encoding/json would for the reference's types, through core/internal/jsonw.
package wire

import (
	"errors"

	"github.com/toolsift/toolsift/core/internal/jsonw"
)

// Error categories and their process exit codes.
const (
	CategoryValidation = "validation"
	CategoryDiscovery  = "discovery"
	CategoryInternal   = "internal"

	CodeValidation = 3
	CodeInternal   = 5
	CodeDiscovery  = 6
)

// Error is a typed failure: Category and Code say who is at fault, Reason is a
// stable machine-readable code (for example "invalid_limit"), Message is for
// people.
type Error struct {
	Category string
	Code     int
	Reason   string
	Message  string
}

func (e *Error) Error() string {
	if e.Reason == "" {
		return e.Category + ": " + e.Message
	}
	return e.Category + " (" + e.Reason + "): " + e.Message
}

// Validation returns a validation error with reason and message.
func Validation(reason, message string) *Error {
	return &Error{Category: CategoryValidation, Code: CodeValidation, Reason: reason, Message: message}
}

// Discovery returns a discovery error (the catalog is not what the caller
// expected) with reason and message.
func Discovery(reason, message string) *Error {
	return &Error{Category: CategoryDiscovery, Code: CodeDiscovery, Reason: reason, Message: message}
}

// Internal returns an internal error: a bug or a broken invariant, never the
// caller's fault.
func Internal(reason, message string) *Error {
	return &Error{Category: CategoryInternal, Code: CodeInternal, Reason: reason, Message: message}
}

// AsError returns e as an error, and a nil error (not a non-nil interface
// holding a nil *Error) when e is nil. Public functions return error, so a
// caller's `if err != nil` means what it says; they pass their *Error
// through here.
func AsError(e *Error) error {
	if e == nil {
		return nil
	}
	return e
}

// ErrorOf returns the *Error inside err (through errors.As), or an internal
// error carrying err's text when err holds none; nil for nil.
func ErrorOf(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal("unexpected_error", err.Error())
}

// AppendJSON appends {"error":{"category","code","message","reason"}} in the
// reference's field order (reason omitted when empty).
func (e *Error) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"error":{"category":`...)
	dst = jsonw.AppendString(dst, e.Category, true)
	dst = append(dst, `,"code":`...)
	dst = jsonw.AppendInt(dst, int64(e.Code))
	dst = append(dst, `,"message":`...)
	dst = jsonw.AppendString(dst, e.Message, true)
	if e.Reason != "" {
		dst = append(dst, `,"reason":`...)
		dst = jsonw.AppendString(dst, e.Reason, true)
	}
	return append(dst, "}}"...)
}
