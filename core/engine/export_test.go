package engine

// Exhaustive returns a view of e that scores every eligible document even
// where index.TopBM25F would find the best k without (the path the top-k
// tests compare it with).
func Exhaustive(e *Engine) *Engine {
	view := *e
	view.exhaustive = true
	return &view
}
