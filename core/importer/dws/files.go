package dws

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// maxDumpBytes bounds what an archive may expand to, so that a hostile
// archive cannot exhaust memory.
const maxDumpBytes = 256 << 20

// FilesFromTarGz reads a gzip'd tar of a dump (regular files only).
func FilesFromTarGz(data []byte) (Files, error) { return filesFromTarGz(data, func() {}) }

// filesFromTarGz is FilesFromTarGz calling checkpoint after each file.
func filesFromTarGz(data []byte, checkpoint func()) (Files, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("dump archive: %w", err)
	}
	files := Files{}
	total := int64(0)
	tr := tar.NewReader(zr)
	for {
		header, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("dump archive: %w", err)
		}
		if header.Typeflag != tar.TypeReg {
			continue
		}
		total += header.Size
		if total > maxDumpBytes {
			return nil, fmt.Errorf("dump archive expands beyond %d bytes", maxDumpBytes)
		}
		body, err := io.ReadAll(io.LimitReader(tr, header.Size))
		if err != nil {
			return nil, fmt.Errorf("dump archive: %s: %w", header.Name, err)
		}
		files[path.Clean(strings.TrimPrefix(header.Name, "./"))] = body
		checkpoint()
	}
}

// FilesFromFS reads catalog.json and tools/*.json from a file system (for
// example os.DirFS of a dump directory).
func FilesFromFS(fsys fs.FS) (Files, error) {
	files := Files{}
	data, err := fs.ReadFile(fsys, "catalog.json")
	if err != nil {
		return nil, err
	}
	files["catalog.json"] = data
	names, err := fs.Glob(fsys, "tools/*.json")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if files[name], err = fs.ReadFile(fsys, name); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// FilesFromBytes reads a dump given as one byte string: a gzip'd tar, or a
// JSON object mapping file names to their JSON contents
// ({"catalog.json": {…}, "tools/chat.json": {…}, …}).
func FilesFromBytes(data []byte) (Files, error) { return filesFromBytes(data, func() {}) }

func filesFromBytes(data []byte, checkpoint func()) (Files, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return filesFromTarGz(data, checkpoint)
	}
	var bundle map[string]json.RawMessage
	if err := json.Unmarshal(data, &bundle); err != nil {
		return nil, fmt.Errorf("catalog is neither a gzip'd tar nor a JSON object of files: %v", err)
	}
	files := Files{}
	for name, content := range bundle {
		files[name] = content
	}
	return files, nil
}
