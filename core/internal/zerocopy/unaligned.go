//go:build amd64 || arm64 || wasm || 386 || ppc64le

package zerocopy

// unalignedLoads: these architectures load a u32 from any address with an
// ordinary instruction (WebAssembly's alignment is only a hint), so a packed
// table is used in place wherever msgpack put it. Go's checkptr allows such
// pointers for types without pointers.
const unalignedLoads = true
