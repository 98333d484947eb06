// Package wasm holds the toolsift WebAssembly module, built from ./module by
// build.sh and committed, so that hosts need no wasm toolchain: Binary is the
// module's bytes. ABI.md is its contract; exports.txt lists its exports and
// imports.
package wasm

import _ "embed"

// Binary is toolsearch.wasm, the WASI reactor module every host runs.
//
//go:embed toolsearch.wasm
var Binary []byte
