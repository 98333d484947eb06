package hostapi

import (
	"context"
	"encoding/json"
)

// moduleLimits is what the module reports through toolsift_limits (ABI.md):
// the largest request it takes and, for each request the host refuses in its
// place, the error it would answer. Reading them from the module, instead of
// from core/wire, keeps a module built from other sources (WithModule)
// refused in its own words, and is what the Python and JS hosts do too.
type moduleLimits struct {
	maxRequestBytes int
	errors          map[string]json.RawMessage // key -> the status-1 payload {"error":{…}}
}

// readLimits asks the instance's module for its limits, once per runtime
// (every instance of a runtime runs the same module).
func (m *moduleRuntime) readLimits(ctx context.Context, in *instance) (*moduleLimits, error) {
	if l := m.limits.Load(); l != nil {
		return l, nil
	}
	descriptor, err := in.call(ctx, fnLimits)
	if err != nil {
		return nil, err
	}
	payload, err := in.take(ctx, descriptor)
	if err != nil {
		return nil, err
	}
	var doc struct {
		MaxRequestBytes int                        `json:"max_request_bytes"`
		Errors          map[string]json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(payload, &doc); err != nil || doc.MaxRequestBytes <= 0 {
		return nil, abiErrorf("toolsift_limits returned %q", clip(payload, 200))
	}
	for _, key := range []string{"search_request_too_large", "inspect_request_too_large", "provider_request_too_large"} {
		if _, ok := doc.Errors[key]; !ok {
			return nil, abiErrorf("toolsift_limits has no errors.%s", key)
		}
	}
	l := &moduleLimits{maxRequestBytes: doc.MaxRequestBytes, errors: doc.Errors}
	m.limits.CompareAndSwap(nil, l)
	return m.limits.Load(), nil
}

// refuseOversized is the module's own error (errors.<key> of its limits) for
// a request larger than the module takes, and nil for one it takes. The
// host refuses before copying anything in: a 60 MB request copied in first
// grew the instance's heap for good, or killed it under a small memory
// limit. Before the first instance has read the limits it refuses nothing,
// and the module answers for itself; so does the native engine (m nil),
// whose core refuses with the same words, copying nothing.
func (m *moduleRuntime) refuseOversized(request []byte, key string) error {
	if m == nil {
		return nil
	}
	l := m.limits.Load()
	if l == nil || len(request) <= l.maxRequestBytes {
		return nil
	}
	return decodeModuleError(l.errors[key])
}
