// Package importtest holds the property every importer's fuzz target checks.
package importtest

import (
	"testing"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/profile"
)

// CheckImport imports data in format: an error, or a non-empty catalog with
// the generic-v1 profile, never a panic. The engine may still refuse a
// catalog (an alias that is another tool's path, say) with an error, which
// the snapshot builder reports as invalid_catalog.
func CheckImport(t *testing.T, format string, data []byte) {
	cat, p, err := importer.Import(format, data)
	if err != nil {
		return
	}
	if cat == nil || p != profile.GenericV3 || cat.ToolCount() == 0 {
		t.Fatalf("no error, but catalog %v and profile %v", cat, p)
	}
	if _, err := engine.New(cat, p); err != nil {
		t.Logf("engine refuses the catalog: %v", err)
	}
}
