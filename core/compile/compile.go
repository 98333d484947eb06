// Package compile is the one path between a catalog and a serving engine,
// in both directions across the snapshot file: it compiles a catalog into a
// snapshot (import → validate → index → encode: Snapshot, FromCatalog,
// Encode) and opens a compiled snapshot into its engine (decode → engine:
// Open). The two live together because they keep one rule between them:
// the engine a snapshot opens into is the engine its catalog would build.
// core/snapshot below it is the file format alone (header, checksum, body
// codec) and knows no engine, importer or profile; the module (wasm/) and
// every native host build and open through this package, so that they all
// write and read the same bytes.
package compile

import (
	"fmt"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
)

// Option adjusts Snapshot and Encode.
type Option func(*options)

type options struct {
	report     *importer.Report
	checkpoint func()
}

// WithReport stores the report of the import that made the catalog in the
// snapshot (nil: none, the default).
func WithReport(report *importer.Report) Option {
	return func(o *options) { o.report = report }
}

// WithCheckpoint calls checkpoint after each tool indexed and once the
// index is finished (engine.WithCheckpoint), so that a host can stop a long
// build. Encode, which indexes nothing, ignores it.
func WithCheckpoint(checkpoint func()) Option {
	return func(o *options) { o.checkpoint = checkpoint }
}

func optionsOf(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Snapshot imports nothing: it indexes an already imported catalog with a
// profile and encodes the result.
func Snapshot(cat *catalog.Catalog, p *profile.Profile, opts ...Option) ([]byte, error) {
	o := optionsOf(opts)
	var engineOpts []engine.Option
	if o.checkpoint != nil {
		engineOpts = append(engineOpts, engine.WithCheckpoint(o.checkpoint))
	}
	e, err := engine.New(cat, p, engineOpts...)
	if err != nil {
		return nil, err
	}
	return Encode(e, opts...)
}

// Encode writes the snapshot of an engine: its profile's name, catalog,
// index and identity table, and the import's report when WithReport gives
// one.
func Encode(e *engine.Engine, opts ...Option) ([]byte, error) {
	o := optionsOf(opts)
	body := snapshot.Body{Profile: e.Profile().Name, Catalog: *e.Catalog(), Index: *e.Index(), Identity: e.IdentityTable()}
	if o.report != nil {
		report, err := o.report.MarshalMsg(nil)
		if err != nil {
			return nil, fmt.Errorf("encode import report: %w", err)
		}
		body.Report = report
	}
	return snapshot.Encode(&body)
}

// FromCatalog imports catalog bytes of the named format with opts and
// builds their snapshot, which stores the import's report. It is the one
// path from catalog bytes to a snapshot, natively and in the module, so that
// every host builds the same bytes. The DWS import is strict and reads every
// field of a known layout, so its report says only how many tools it read:
// it is returned but not stored, and a DWS snapshot is the same bytes with
// or without one.
func FromCatalog(format string, data []byte, opts importer.Options) ([]byte, *importer.Report, error) {
	cat, p, report, err := importer.ImportWith(format, data, opts)
	if err != nil {
		return nil, nil, err
	}
	stored := report
	if format == dws.Format {
		stored = nil
	}
	snap, err := Snapshot(cat, p, WithReport(stored), WithCheckpoint(opts.Checkpoint))
	if err != nil {
		return nil, nil, err
	}
	return snap, report, nil
}

// Open decodes a snapshot (snapshot.Decode, with opts: snapshot.Owned hands
// data over instead of copying it) and builds its engine around the stored
// index. The profile must be one this build knows; the index must be
// consistent with the catalog; the import report, when there is one, must
// decode. With GOMAXPROCS above one, the snapshot's checksum is computed
// alongside the decoding and the engine's build (snapshot.Then); the engine
// is the same either way. A failure is a *wire.Error (errors.As reaches it).
func Open(data []byte, opts ...snapshot.DecodeOption) (*engine.Engine, error) {
	var e *engine.Engine
	opts = append(opts[:len(opts):len(opts)], snapshot.Then(func(body *snapshot.Body) error {
		// The report is checked though the engine never reads it, so that
		// Open refuses every snapshot whose content is not what a build
		// writes, the report's included (as when the format decoded it).
		if _, err := Report(body); err != nil {
			return err
		}
		var werr *wire.Error
		e, werr = engineOf(body)
		return wire.AsError(werr)
	}))
	if _, err := snapshot.Decode(data, opts...); err != nil {
		return nil, err
	}
	return e, nil
}

// engineOf builds the engine of a decoded body.
func engineOf(body *snapshot.Body) (*engine.Engine, *wire.Error) {
	p, ok := profile.Lookup(body.Profile)
	if !ok {
		return nil, wire.Validation("unsupported_profile", fmt.Sprintf("snapshot uses profile %q, which this build does not know", body.Profile))
	}
	e, err := engine.New(&body.Catalog, p, engine.WithIndex(&body.Index, &body.Identity))
	if err != nil {
		return nil, invalid("snapshot content is inconsistent: " + err.Error())
	}
	return e, nil
}

// Report is the import report a decoded snapshot stores (nil: none). A
// report section that is not one whole importer.Report is an
// invalid_snapshot error: the checksum passed, so the snapshot was written
// so. (core/snapshot checks only that the section is one MessagePack value.)
func Report(body *snapshot.Body) (*importer.Report, error) {
	if len(body.Report) == 0 {
		return nil, nil
	}
	r := new(importer.Report)
	rest, err := r.UnmarshalMsg(body.Report)
	switch {
	case err != nil:
		return nil, wire.AsError(invalid("the import report does not decode: " + err.Error()))
	case len(rest) != 0:
		return nil, wire.AsError(invalid(fmt.Sprintf("the import report has %d trailing bytes", len(rest))))
	}
	return r, nil
}

func invalid(message string) *wire.Error { return wire.Validation("invalid_snapshot", message) }
