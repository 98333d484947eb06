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
	request, err := decodeInspectRequest(data)
	if err != nil {
		return InspectRequest{}, err
	}
	if request.Version != InspectVersion {
		return InspectRequest{}, Validation("unsupported_version", `request must carry "version":"schema-inspect.v1"`)
	}
	return request, nil
}

// decodeInspectRequest decodes a request without judging its version.
func decodeInspectRequest(data []byte) (InspectRequest, *Error) {
	var r InspectRequest
	d, err := newDecoder(data, InspectVersion)
	if err != nil {
		return InspectRequest{}, err
	}
	for d.nextField() {
		switch {
		case d.fieldIs("version"):
			d.versionValue(&r.Version, InspectVersion)
		case d.fieldIs("canonical_path"):
			d.stringValue(&r.CanonicalPath)
		case d.fieldIs("expected_source_hash"):
			d.stringValue(&r.ExpectedSourceHash)
		case d.fieldIs("expected_surface_hash"):
			d.stringValue(&r.ExpectedSurfaceHash)
		default:
			d.unknownField()
		}
	}
	if err := d.finish(); err != nil {
		return InspectRequest{}, err
	}
	return r, nil
}
