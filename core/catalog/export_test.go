package catalog

// SkimParameters is skimParameters, for the differential tests.
var SkimParameters = skimParameters

// CheckParameters is checkParameters, for the differential tests.
var CheckParameters = checkParameters

// DecodeParametersToCheck is the generated decoder's check of a stored
// parameter list (decodeParameters without keeping anything).
func DecodeParametersToCheck(b []byte) ([]byte, error) {
	_, rest, err := decodeParameters(b, false)
	return rest, err
}

// StoredParameters is a tool's stored parameter list (nil when it has none
// or was not decoded from a snapshot).
func StoredParameters(t *Tool) []byte {
	if t.stored == nil {
		return nil
	}
	return t.stored.encoded
}
