package wire

// InspectRequest is a schema-inspect.v1 request. Both expected hashes are
// required: they are what makes an Inspect safe against a catalog that changed
// since the search that found the tool.
type InspectRequest struct {
	Version             string `json:"version"`
	CanonicalPath       string `json:"canonical_path"`
	ExpectedSourceHash  string `json:"expected_source_hash"`
	ExpectedSurfaceHash string `json:"expected_surface_hash"`
}

// DecodeInspectRequest strictly decodes one schema-inspect.v1 request (same
// rules as DecodeSearchRequest).
func DecodeInspectRequest(data []byte) (InspectRequest, *Error) {
	var request InspectRequest
	if err := decodeStrict(data, &request, InspectVersion); err != nil {
		return InspectRequest{}, err
	}
	if request.Version != InspectVersion {
		return InspectRequest{}, Validation("unsupported_version", `request must carry "version":"schema-inspect.v1"`)
	}
	return request, nil
}
