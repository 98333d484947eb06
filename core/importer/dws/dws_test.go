package dws_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/internal/fixtures"
)

const (
	wantSource  = "sha256:b37063267ea07515a0d2db949fd8fa75c97912607bd8e812dc3f70dec4d671c8"
	wantSurface = "sha256:1cd4342ce63dbeba968126330f60f5f148933464ce1116187fb47b401ca8e4c1"
)

func files(t *testing.T) dws.Files {
	t.Helper()
	f, err := dws.FilesFromTarGz(fixtures.DWSCatalog)
	require.NoError(t, err)
	return f
}

func TestImportDWSCatalog(t *testing.T) {
	cat, err := dws.Import(files(t))
	require.NoError(t, err)
	require.Equal(t, wantSource, cat.Version.SourceHash)
	require.Equal(t, wantSurface, cat.Version.SurfaceHash)
	require.Len(t, cat.Products, 27)
	require.Equal(t, 1122, cat.ToolCount())
	effects := map[string]int{}
	executable, aliases := 0, 0
	for _, p := range cat.Products {
		for i, tool := range p.Tools {
			effects[tool.Safety.Effect]++
			aliases += len(tool.Identity.Aliases)
			if tool.Interface.AgentExecutable() {
				executable++
			}
			if i > 0 {
				require.Less(t, p.Tools[i-1].Identity.CanonicalPath, tool.Identity.CanonicalPath)
			}
		}
	}
	require.Equal(t, map[string]int{"write": 541, "read": 524, "destructive": 57}, effects)
	require.Equal(t, 1122, executable)
	require.Equal(t, 22, aliases)
}

// rewrite applies edit to one tool of a shard and returns the changed dump.
func rewrite(t *testing.T, f dws.Files, shard, canonical string, edit func(tool map[string]any)) dws.Files {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(f[shard], &doc))
	edit(doc["tools"].(map[string]any)[canonical].(map[string]any))
	data, err := json.Marshal(doc)
	require.NoError(t, err)
	out := dws.Files{}
	for k, v := range f {
		out[k] = v
	}
	out[shard] = data
	return out
}

func TestImportRefusesChangedDump(t *testing.T) {
	f := files(t)
	// Prose changes the source hash only.
	changed := rewrite(t, f, "tools/chat.json", "chat.query_msg_read_status", func(tool map[string]any) {
		tool["description"] = "changed"
	})
	_, err := dws.Import(changed)
	require.ErrorContains(t, err, "source_hash")
	// A new alias changes command identity: the surface hash.
	changed = rewrite(t, f, "tools/chat.json", "chat.query_msg_read_status", func(tool map[string]any) {
		tool["aliases"] = []string{"chat message seen"}
	})
	_, err = dws.Import(changed)
	require.ErrorContains(t, err, "surface_hash")
}

func TestImportNamesTheBadField(t *testing.T) {
	f := files(t)
	changed := rewrite(t, f, "tools/chat.json", "chat.query_msg_read_status", func(tool map[string]any) {
		tool["effect"] = 7
	})
	_, err := dws.Import(changed)
	require.ErrorContains(t, err, `chat.query_msg_read_status`)
	require.ErrorContains(t, err, `"effect"`)

	changed = rewrite(t, f, "tools/chat.json", "chat.query_msg_read_status", func(tool map[string]any) {
		tool["canonical_path"] = "chat.other"
	})
	_, err = dws.Import(changed)
	require.ErrorContains(t, err, `holds tool "chat.other"`)
}

func TestImportRejectsMalformedDumps(t *testing.T) {
	f := files(t)
	for name, mutate := range map[string]func(dws.Files){
		"no catalog.json":      func(f dws.Files) { delete(f, "catalog.json") },
		"truncated catalog":    func(f dws.Files) { f["catalog.json"] = f["catalog.json"][:1000] },
		"truncated shard":      func(f dws.Files) { f["tools/chat.json"] = f["tools/chat.json"][:500] },
		"missing shard":        func(f dws.Files) { delete(f, "tools/chat.json") },
		"unknown product file": func(f dws.Files) { f["tools/zzz.json"] = []byte(`{"product":"zzz","tools":{}}`) },
		"not an object":        func(f dws.Files) { f["tools/chat.json"] = []byte(`[1,2]`) },
		"trailing data":        func(f dws.Files) { f["catalog.json"] = append(bytes.Clone(f["catalog.json"]), []byte(" {}")...) },
	} {
		copied := dws.Files{}
		for k, v := range f {
			copied[k] = v
		}
		mutate(copied)
		_, err := dws.Import(copied)
		require.Error(t, err, name)
	}
}

func TestFilesFromTarGzRejectsGarbage(t *testing.T) {
	_, err := dws.FilesFromTarGz([]byte("not gzip"))
	require.Error(t, err)
	_, err = dws.FilesFromTarGz(fixtures.DWSCatalog[:len(fixtures.DWSCatalog)/2])
	require.True(t, err != nil && strings.Contains(err.Error(), "dump archive"), "%v", err)
}
