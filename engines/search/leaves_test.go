package search

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// refNegamax8 is the exact score of p to move by plain negamax over the
// rules' moves (othello.Legal8, othello.Flips8), without any window,
// ordering, cutoff or counting trick: the reference the last-empties
// solvers are checked against. Scores follow the thread's mode: anti
// negates, toWinner gives the empties of a finished game to its winner.
func refNegamax8(anti, toWinner bool, p, o uint64, passed bool) int {
	moves := othello.Legal8(p, o)
	if moves == 0 {
		if passed || othello.Legal8(o, p) == 0 {
			d := bits.OnesCount64(p) - bits.OnesCount64(o)
			if anti {
				d = -d
			}
			if e := 64 - bits.OnesCount64(p|o); toWinner && d != 0 {
				if d > 0 {
					d += e
				} else {
					d -= e
				}
			}
			return d
		}
		return -refNegamax8(anti, toWinner, o, p, true)
	}
	best := -1000
	for ; moves != 0; moves &= moves - 1 {
		sq := bits.TrailingZeros64(moves)
		f := othello.Flips8(p, o, sq)
		best = max(best, -refNegamax8(anti, toWinner, o&^f, p|f|1<<uint(sq), false))
	}
	return best
}

// randomBoard8 fills every square at random (not necessarily a position a
// game can reach) and leaves n of them empty.
func randomBoard8(rng *rand.Rand, n int) (p, o uint64) {
	p = rng.Uint64()
	empty := uint64(0)
	for pc(empty) < n {
		empty |= 1 << uint(rng.IntN(64))
	}
	// Now and then a lopsided board, so that passes, games without a
	// move and wipe-outs occur.
	switch rng.IntN(4) {
	case 0:
		p &= rng.Uint64() & rng.Uint64()
	case 1:
		p |= rng.Uint64() | rng.Uint64()
	}
	p &^= empty
	return p, ^(p | empty)
}

// checkLeafSolve solves p to move with solve8 in (alpha, beta) and checks
// the fail-soft contract against the reference: the exact score inside
// the window, a bound on the right side outside it.
func checkLeafSolve(t *testing.T, th *thread, p, o uint64, alpha, beta int) {
	t.Helper()
	want := refNegamax8(th.anti, th.toWinner, p, o, false)
	got := th.solve8(p, o, alpha, beta, false)
	msg := []any{"p %#x o %#x anti %v toWinner %v window (%d, %d): got %d, exact %d", p, o, th.anti, th.toWinner, alpha, beta, got, want}
	switch {
	case got <= alpha:
		require.LessOrEqual(t, want, got, msg...)
	case got >= beta:
		require.GreaterOrEqual(t, want, got, msg...)
	default:
		require.Equal(t, want, got, msg...)
	}
	if alpha < want && want < beta {
		require.Equal(t, want, got, msg...)
	}
}

// TestLeafSolversMatchNegamax checks solve8 at 1 to 8 empties (the last-1
// to last-4 solvers, the shallow search above them and the first deep
// nodes) against plain negamax on random boards and on positions of
// random games, in every scoring (std and anti, empties to nobody or to
// the winner), with full, null and narrow windows around the score.
func TestLeafSolversMatchNegamax(t *testing.T) {
	t.Parallel()
	per := 400
	if testing.Short() {
		per = 120
	}
	rng := rand.New(rand.NewPCG(38, 4))
	for _, anti := range []bool{false, true} {
		for _, toWinner := range []bool{false, true} {
			th := &thread{anti: anti, toWinner: toWinner, tt: newTable(1), job: &job{}}
			for i := range per {
				n := 1 + i%8
				var p, o uint64
				if i%3 == 0 && n >= 2 { // randomGame needs two moves
					mode := othello.Std
					if anti {
						mode = othello.Anti
					}
					pos := randomGame(mode, n, uint64(i)*7919+11)
					p, o = pos.Discs(pos.Turn).Lo, pos.Discs(pos.Turn.Opponent()).Lo
				} else {
					p, o = randomBoard8(rng, n)
				}
				want := refNegamax8(anti, toWinner, p, o, false)
				checkLeafSolve(t, th, p, o, -inf, inf)
				for _, d := range []int{-3, -1, 0, 1, 2} {
					a := want + d
					checkLeafSolve(t, th, p, o, a, a+1)
				}
				a := rng.IntN(130) - 65
				checkLeafSolve(t, th, p, o, a, a+1+rng.IntN(20))
			}
		}
	}
}

// FuzzLeafSolvers checks solve8 against plain negamax on boards made from
// the fuzzer's seed: up to 7 empties, any window, every scoring.
func FuzzLeafSolvers(f *testing.F) {
	for i := range 16 {
		f.Add(uint64(i)*0x9E3779B97F4A7C15, uint8(i), int8(i*7-50), uint8(i*3), i&1 == 0, i&2 == 0)
	}
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, alpha int8, width uint8, anti, toWinner bool) {
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		p, o := randomBoard8(rng, 1+int(n)%7)
		a := int(alpha) % 66
		th := &thread{anti: anti, toWinner: toWinner, tt: newTable(1), job: &job{}}
		checkLeafSolve(t, th, p, o, a, a+1+int(width)%130)
	})
}
