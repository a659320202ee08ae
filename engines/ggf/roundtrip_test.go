package ggf_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/engines/internal/enginetest"
)

// An external test: engines/internal/enginetest, whose fake NBoard engine
// reads games with this package, gives the positions.
func TestFormatParseRoundTrip(t *testing.T) {
	for i, pos := range enginetest.Positions(t, 20) {
		s, err := ggf.Format(ggf.Game{Start: pos})
		require.NoError(t, err)
		g, err := ggf.Parse(s)
		require.NoError(t, err, s)
		got, err := g.Position()
		require.NoError(t, err)
		assert.Equal(t, pos.Black, got.Black, "position %d", i)
		assert.Equal(t, pos.White, got.White, "position %d", i)
		assert.Equal(t, pos.Turn, got.Turn, "position %d", i)
	}
}
