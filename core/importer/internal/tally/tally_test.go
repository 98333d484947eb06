package tally

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRepair: a lenient tally counts each repair under its field and keeps
// the first example; a strict or nil one returns the error instead.
func TestRepair(t *testing.T) {
	lenient := New(false)
	require.NoError(t, lenient.Repair("parameters.required", errors.New("first")))
	require.NoError(t, lenient.Repair("parameters.required", errors.New("second")))
	require.NoError(t, lenient.Repair("enum", errors.New("only")))
	require.Equal(t, []Repair{{Field: "enum", Count: 1, Example: "only"}, {Field: "parameters.required", Count: 2, Example: "first"}}, lenient.Repairs())
	require.True(t, lenient.Lenient())

	for _, strict := range []*Tally{New(true), nil} {
		require.EqualError(t, strict.Repair("enum", errors.New("refused")), "refused")
		require.Empty(t, strict.Repairs())
		require.False(t, strict.Lenient())
	}
}

// TestFieldsSayWhereEachWent: roles are listed once each, sorted, whatever
// the order they were recorded in.
func TestFieldsSayWhereEachWent(t *testing.T) {
	tl := New(false)
	tl.UseAs("inputSchema", "parameters")
	tl.Also("inputSchema", ToExtra)
	tl.UseAs("inputSchema", "parameters")
	tl.IgnoreAs("strict", ToHowToCall)
	require.Equal(t, []Field{
		{Name: "inputSchema", Used: 2, To: []string{"extra", "parameters"}},
		{Name: "strict", Ignored: 1, To: []string{ToHowToCall}},
	}, tl.Fields())
}
