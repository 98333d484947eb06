package wire

import "github.com/toolsift/toolsift/core/internal/jsonw"

// ModuleInfo is the answer of the module's toolsift_version export: what
// this build of the module reads and builds (wasm/ABI.md). It is encoded
// here, beside the other answers, so that the module's two builds (core
// module and component) and any host answering natively write the same
// bytes.
type ModuleInfo struct {
	ABI            int
	Version        string
	SnapshotFormat int
	Profiles       []string
	Formats        []string
}

// AppendJSON appends the toolsift_version JSON of m.
func (m *ModuleInfo) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"abi":`...)
	dst = jsonw.AppendInt(dst, int64(m.ABI))
	dst = append(dst, `,"module":"toolsift","version":`...)
	// The module wrote this one string with %q; a release version is
	// printable ASCII without quotes or backslashes, where both agree.
	dst = jsonw.AppendString(dst, m.Version, true)
	dst = append(dst, `,"snapshot_format":`...)
	dst = jsonw.AppendInt(dst, int64(m.SnapshotFormat))
	dst = append(dst, `,"profiles":`...)
	dst = jsonw.AppendStrings(dst, m.Profiles, false)
	dst = append(dst, `,"formats":`...)
	dst = jsonw.AppendStrings(dst, m.Formats, false)
	return append(dst, '}')
}

// SnapshotInfo is the answer of the module's toolsift_info export: what an
// open snapshot holds (wasm/ABI.md).
type SnapshotInfo struct {
	Profile       string
	Format        string
	SourceHash    string
	SurfaceHash   string
	ToolCount     int
	ProductCount  int
	SnapshotBytes int
}

// AppendJSON appends the toolsift_info JSON of s.
func (s *SnapshotInfo) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"profile":`...)
	dst = jsonw.AppendString(dst, s.Profile, true)
	dst = append(dst, `,"format":`...)
	dst = jsonw.AppendString(dst, s.Format, true)
	dst = append(dst, `,"source_hash":`...)
	dst = jsonw.AppendString(dst, s.SourceHash, true)
	dst = append(dst, `,"surface_hash":`...)
	dst = jsonw.AppendString(dst, s.SurfaceHash, true)
	dst = append(dst, `,"tool_count":`...)
	dst = jsonw.AppendInt(dst, int64(s.ToolCount))
	dst = append(dst, `,"product_count":`...)
	dst = jsonw.AppendInt(dst, int64(s.ProductCount))
	dst = append(dst, `,"snapshot_bytes":`...)
	dst = jsonw.AppendInt(dst, int64(s.SnapshotBytes))
	return append(dst, '}')
}
