//go:build !wasm

package index

// TopBM25FMinDocs is the catalog size from which TopBM25F is the faster
// way to the best k (both give the same answers). Natively, below it, a
// query's field postings are short and the exhaustive loops are fast: the
// exact rescoring of the candidates (binary searches per term and field)
// and the merging of terms cost more than they save. Natively, exhaustive
// against TopBM25F (with dense adding) alternated, p50 of `toolsiftbench
// run -engine native -seconds 2`: StableToolBench (2,479 tools) 101, 110,
// 101 against 126, 126, 124 µs; 10,000 tools 328, 435, 414 against 361,
// 414, 348 µs (level).
const TopBM25FMinDocs = 32768
