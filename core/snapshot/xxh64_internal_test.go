package snapshot

import "testing"

// TestXXH64 checks the checksum against vectors of the reference
// implementation (libxxhash 0.8, XXH64 with seed 0), covering every tail
// length and the 32-byte stripes.
func TestXXH64(t *testing.T) {
	for _, v := range []struct {
		in   string
		want uint64
	}{
		{"", 0xef46db3751d8e999},
		{"a", 0xd24ec4f1a98c6e5b},
		{"abc", 0x44bc2cf5ad770999},
		{"The quick brown fox jumps over the lazy dog", 0x0b242d361fda71bc},
		{"0", 0x633457081244afec},
		{"012", 0x1c2dcb4b9024d73d},
		{"0123", 0x4c33072b45647dcb},
		{"01234", 0x34cb4c2ee6166f65},
		{"0123456", 0x97ee4fe4a0ff4dfa},
		{"01234567", 0xe4ba22a49ad89d3f},
		{"012345678", 0x43ecc9248bc07d20},
		{"0123456789ab", 0x862e292326b8a4fc},
		{"0123456789abcde", 0x4bb51a30968e6a4d},
		{"0123456789abcdef", 0x5c5b90c34e376d0b},
		{"0123456789abcdefghijklmnopqrstu", 0x80adfc1d42020f39},
		{"0123456789abcdefghijklmnopqrstuv", 0xbf7c9dbe16b5c6e2},
		{"0123456789abcdefghijklmnopqrstuvw", 0xe97423e605e2f3b4},
		{"0123456789abcdefghijklmnopqrstuvwxy", 0x9ac87a62d22fa180},
		{"0123456789abcdefghijklmnopqrstuvwxyz", 0x69196c1b3af0bff9},
		{"0123456789abcdefghijklmnopqrstuvwxyzABCD", 0x1b3ce041c106b50b},
		{"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0", 0x82caa9ab0d6c3044},
		{"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01", 0x763e844e9e2f30a9},
		{"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012", 0x16add03ef51afec7},
		{"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyzAB", 0x477e4b027ef957b3},
		{"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012", 0x114cd25f75ece5e7},
	} {
		if got := xxh64([]byte(v.in)); got != v.want {
			t.Errorf("xxh64(%q) = %#016x, want %#016x", v.in, got, v.want)
		}
	}
}

// TestXXH64AcrossCalls checks inputs around the size one stripe call takes
// (stripesPerCall) against values from the python-xxhash package (0.8's
// XXH64, seed 0), for byte i = i·131 + i>>9.
func TestXXH64AcrossCalls(t *testing.T) {
	for _, v := range []struct {
		n    int
		want uint64
	}{
		{1<<20 - 1, 0x5912497fee9cdc8f},
		{1 << 20, 0x77a73570e300b127},
		{1<<20 + 31, 0x9ff81a4ca400a273},
		{1<<20 + 32, 0x055da9d532d55887},
		{3<<20 + 37, 0x8f175f7cacb194a0},
	} {
		b := make([]byte, v.n)
		for i := range b {
			b[i] = byte(i*131 + i>>9)
		}
		if got := xxh64(b); got != v.want {
			t.Errorf("xxh64 of %d bytes = %#016x, want %#016x", v.n, got, v.want)
		}
	}
}

func BenchmarkChecksum(b *testing.B) {
	body := make([]byte, 5<<20)
	for i := range body {
		body[i] = byte(i * 7)
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		xxh64(body)
	}
}
