package engine

// Derived returns the value that build derives from this engine, building
// it on the first call with key and keeping it as long as the engine (its
// explaining twin shares it). It is for tables a package above the engine
// computes from the catalog once instead of per call (core/provider's
// provider names); key is that package's own unexported type, so no two
// packages share an entry. Concurrent first calls may each build; one value
// is kept and returned to all.
func (e *Engine) Derived(key any, build func() any) any {
	if v, ok := e.derived.Load(key); ok {
		return v
	}
	v, _ := e.derived.LoadOrStore(key, build())
	return v
}
