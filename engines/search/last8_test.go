package search

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

func TestLastFlips8MatchesFlips8(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	for range 20000 {
		sq := rng.IntN(64)
		p := rng.Uint64() &^ (1 << uint(sq))
		o := ^p &^ (1 << uint(sq))
		require.Equal(t, bits.OnesCount64(othello.Flips8(p, o, sq)), lastFlips8(p, sq), "p %#x sq %d", p, sq)
		require.Equal(t, bits.OnesCount64(othello.Flips8(o, p, sq)), lastFlips8(o, sq), "o %#x sq %d", o, sq)
	}
}

// refLastScore8 is the score with one empty square sq left, by the rules'
// flips and the final board.
func (t *thread) refLastScore8(p, o uint64, sq int) int {
	if f := othello.Flips8(p, o, sq); f != 0 {
		return t.fullScore8(p | f | 1<<uint(sq))
	}
	if f := othello.Flips8(o, p, sq); f != 0 {
		return t.fullScore8(p &^ f)
	}
	return t.endScore8(p, o)
}

func TestLastScore8MatchesTheRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(56, 78))
	for _, anti := range []bool{false, true} {
		for _, toWinner := range []bool{false, true} {
			th := &thread{anti: anti, toWinner: toWinner}
			for range 5000 {
				sq := rng.IntN(64)
				// Sparse or dense player discs, so that passes and games
				// without a move for either side occur.
				p := rng.Uint64() & rng.Uint64() &^ (1 << uint(sq))
				if rng.IntN(2) == 0 {
					p = ^p &^ (1 << uint(sq))
				}
				o := ^p &^ (1 << uint(sq))
				require.Equal(t, th.refLastScore8(p, o, sq), th.lastScore8(p, sq, -inf, inf), "p %#x sq %d anti %v", p, sq, anti)
			}
		}
	}
}
