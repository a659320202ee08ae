package othello

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// stdPerft is the published std perft from the start position.
var stdPerft = []uint64{1, 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284, 212258800}

func TestPerftStd(t *testing.T) {
	maxDepth := 9
	if testing.Short() {
		maxDepth = 7
	}
	for d := 0; d <= maxDepth; d++ {
		assert.Equal(t, stdPerft[d], Perft(New(Std), d), "depth %d", d)
	}
}

func TestPerftStdLong(t *testing.T) {
	if testing.Short() {
		t.Skip("depths 10 and 11 take tens of seconds; run without -short")
	}
	for d := 10; d <= 11; d++ {
		assert.Equal(t, stdPerft[d], Perft(New(Std), d), "depth %d", d)
	}
}
