//go:build !(amd64 || arm64 || wasm || 386 || ppc64le)

package zerocopy

// unalignedLoads: other architectures may fault or trap on an unaligned
// load, so only tables at 4-byte-aligned addresses are used in place.
const unalignedLoads = false
