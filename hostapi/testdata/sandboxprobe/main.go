//go:build wasip1

// Command sandboxprobe is a WASI reactor that reports what its host gives
// it: arguments, environment variables, preopened directories, any other
// open file descriptor (a preopened socket is one), and whether it can open a
// path or read stdin. hostapi's TestSandboxSeenFromInside builds it and runs
// it with the host's own runtime and module configuration.
//
// It asks both the raw WASI functions (what any module would see) and Go's
// os package (what the toolsift module, a Go program, sees).
package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"unsafe"
)

//go:wasmimport wasi_snapshot_preview1 args_sizes_get
func argsSizesGet(count, bytes *uint32) uint32

//go:wasmimport wasi_snapshot_preview1 environ_sizes_get
func environSizesGet(count, bytes *uint32) uint32

//go:wasmimport wasi_snapshot_preview1 fd_prestat_get
func fdPrestatGet(fd uint32, prestat unsafe.Pointer) uint32

//go:wasmimport wasi_snapshot_preview1 fd_fdstat_get
func fdFdstatGet(fd uint32, fdstat unsafe.Pointer) uint32

// WASI file types (byte 0 of an fdstat) of sockets.
const (
	filetypeSocketDgram  = 5
	filetypeSocketStream = 6
)

// highestFD is how far the probe looks for descriptors. WASI hosts number
// preopens (directories and listening sockets) from 3 upwards without gaps,
// so any host configuration that gives some has one at 3.
const highestFD = 64

// Report is what the probe found; the test decodes the same fields.
type Report struct {
	ArgsCount    uint32   `json:"args_count"`    // args_sizes_get
	EnvironCount uint32   `json:"environ_count"` // environ_sizes_get
	Args         []string `json:"args"`          // os.Args
	Environ      []string `json:"environ"`       // os.Environ()
	// Descriptors from 3 to highestFD for which fd_prestat_get, or
	// fd_fdstat_get, succeeded, those of them that are sockets, and the
	// errno of each call on fd 3.
	Preopens      []uint32 `json:"preopens"`
	OpenFDs       []uint32 `json:"open_fds"`
	SocketFDs     []uint32 `json:"socket_fds"`
	PrestatErrno3 uint32   `json:"prestat_errno_3"`
	FdstatErrno3  uint32   `json:"fdstat_errno_3"`
	// Paths that os.Open could open ("/", ".", "/etc/passwd", ...), and the
	// error for each one that it could not.
	Opened     []string          `json:"opened"`
	OpenErrors map[string]string `json:"open_errors"`
	// Bytes read from stdin before EOF (or an error).
	StdinBytes int    `json:"stdin_bytes"`
	StdinError string `json:"stdin_error"`
}

var result []byte // kept alive for the host to read

// sandboxReport runs the probe and returns (ptr << 32) | len of its JSON
// report in linear memory.
//
//go:wasmexport sandbox_report
func sandboxReport() uint64 {
	r := Report{Args: os.Args, Environ: os.Environ(), OpenErrors: map[string]string{}}
	var n, size uint32
	argsSizesGet(&n, &size)
	r.ArgsCount = n
	environSizesGet(&n, &size)
	r.EnvironCount = n

	var buf [64]byte // larger than a prestat (8 bytes) and an fdstat (24)
	for fd := uint32(3); fd <= highestFD; fd++ {
		errno := fdPrestatGet(fd, unsafe.Pointer(&buf[0]))
		if errno == 0 {
			r.Preopens = append(r.Preopens, fd)
		}
		if fd == 3 {
			r.PrestatErrno3 = errno
		}
		errno = fdFdstatGet(fd, unsafe.Pointer(&buf[0]))
		if errno == 0 {
			r.OpenFDs = append(r.OpenFDs, fd)
			if buf[0] == filetypeSocketDgram || buf[0] == filetypeSocketStream {
				r.SocketFDs = append(r.SocketFDs, fd)
			}
		}
		if fd == 3 {
			r.FdstatErrno3 = errno
		}
	}
	for _, path := range []string{"/", ".", "/etc/passwd", "/tmp", "/proc/self/environ"} {
		f, err := os.Open(path)
		if err != nil {
			r.OpenErrors[path] = err.Error()
			continue
		}
		r.Opened = append(r.Opened, path)
		f.Close()
	}

	data, err := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	r.StdinBytes = len(data)
	if err != nil && !errors.Is(err, io.EOF) {
		r.StdinError = err.Error()
	}

	result, _ = json.Marshal(r)
	return uint64(uintptr(unsafe.Pointer(&result[0])))<<32 | uint64(len(result))
}

func main() {}
