package othello

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRandomOpening: 12 discs, black to move with a legal move, the moves
// replay to the start, and the same seed gives the same starts.
func TestRandomOpening(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	again := rand.New(rand.NewPCG(1, 1))
	for _, m := range AllModes() {
		for i := 0; i < 20; i++ {
			pos, moves := RandomOpening(m, r)
			b, w := pos.Count()
			assert.Equal(t, 12, b+w, "%s start\n%v", m, pos)
			assert.Equal(t, Black, pos.Turn)
			assert.False(t, pos.Legal().IsZero())
			if m == Reversi {
				assert.Len(t, moves, 12)
			} else {
				assert.Len(t, moves, 8)
			}
			p := New(m)
			for _, mv := range moves {
				if p.Legal().IsZero() {
					p, _ = p.Play(Pass)
				}
				var err error
				p, err = p.Play(mv)
				require.NoError(t, err)
			}
			assert.Equal(t, pos, p, "%s: the moves replay to the start", m)
			pos2, moves2 := RandomOpening(m, again)
			assert.Equal(t, pos, pos2, "%s: same seed, same start", m)
			assert.Equal(t, moves, moves2)
		}
	}
}
