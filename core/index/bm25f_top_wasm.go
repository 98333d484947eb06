//go:build wasm

package index

// TopBM25FMinDocs is the catalog size from which TopBM25F is the faster
// way to the best k (both give the same answers). In WebAssembly it is at
// every size: on wazero, old against new alternated, p50 of
// `toolsiftbench run -engine wasm -seconds 2`, StableToolBench (2,479
// tools) 1.36, 1.39 against 1.15, 1.25 ms; 10,000 tools 4.51, 3.60 against
// 2.50, 1.74 ms. In Node it was as fast as before (stb 481, 297 against
// 430, 290 µs; 10,000 tools 922, 870 against 871, 1006 µs).
const TopBM25FMinDocs = 0
