//go:build !linux

package hostapi

// mappedRegion is the Linux mapping of memory_linux.go; elsewhere every
// instance's memory is a growingMemory.
type mappedRegion struct{}

func mapRegion(uint64) *mappedRegion { return nil }

func (*mappedRegion) Reallocate(uint64) []byte { return nil }

func (*mappedRegion) Free() {}

func (*mappedRegion) release() {}

func (*mappedRegion) view(uint64, uint64) ([]byte, func()) { return nil, nil }
