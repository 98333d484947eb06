// Package importtest holds the property every importer's fuzz target checks.
package importtest

import (
	"reflect"
	"testing"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/profile"
)

// CheckImport imports data in format: an error, or a non-empty catalog with
// the generic-v1 profile, never a panic. The engine may still refuse a
// catalog (an alias that is another tool's path, say) with an error, which
// the snapshot builder reports as invalid_catalog.
//
// The lenient import (the default) must never panic either, account for
// every tool it read (imported or skipped), and, where the strict import
// succeeds, give the same catalog with no repair: lenience changes only
// what strictness refuses.
func CheckImport(t *testing.T, format string, data []byte) {
	lenient, _, report, lerr := importer.ImportWith(format, data, importer.Options{})
	if lerr == nil && report.ToolsImported+report.ToolsSkipped > report.ToolsRead {
		t.Fatalf("report accounts for more tools than were read: %+v", report)
	}
	cat, p, err := importer.Import(format, data)
	if err != nil {
		return
	}
	if lerr != nil {
		t.Fatalf("strict import succeeds, lenient fails: %v", lerr)
	}
	if len(report.Warnings) > 0 || report.ToolsSkipped > 0 {
		t.Fatalf("strict import succeeds, yet the lenient one repaired or skipped: %+v", report)
	}
	if !reflect.DeepEqual(lenient, cat) {
		t.Fatalf("strict and lenient imports differ")
	}
	if cat == nil || p != profile.GenericV3 || cat.ToolCount() == 0 {
		t.Fatalf("no error, but catalog %v and profile %v", cat, p)
	}
	if _, err := engine.New(cat, p); err != nil {
		t.Logf("engine refuses the catalog: %v", err)
	}
}
