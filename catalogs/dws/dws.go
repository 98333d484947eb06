// Package dws is the DingTalk Workspace CLI catalog (27 products, 1,122
// tools) as a ready toolsift snapshot under the dws-v1 profile: the catalog
// every host serves when given none, for Go programs that want it too.
//
// Importing this package adds the snapshot (about 5 MB) to a binary; import
// it only where the DWS catalog is wanted. The catalog data is Apache-2.0,
// Copyright 2026 Alibaba Group: see LICENSE and NOTICE beside this file.
//
//	engine, err := hostapi.Open(ctx, dws.Snapshot())   // the module on wazero
//	engine, err := compile.Open(dws.Snapshot())          // or the native core (core/compile)
//
// The package imports nothing of toolsift, so either host can use it.
package dws

import _ "embed"

// snapshot is a string so that nobody can change the bytes every caller
// shares: Snapshot hands out copies.
//
//go:embed dws.snap
var snapshot string

// Snapshot returns a copy of the DWS snapshot's bytes (the caller owns it).
func Snapshot() []byte { return []byte(snapshot) }

// Size is the snapshot's length in bytes.
func Size() int { return len(snapshot) }
