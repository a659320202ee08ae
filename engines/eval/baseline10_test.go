package eval

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// neighboursByHand is neighbours10 square by square.
func neighboursByHand(x othello.Bits) othello.Bits {
	var out othello.Bits
	for sq := 0; sq < 100; sq++ {
		if x.Has(sq) {
			continue
		}
		r, c := sq/10, sq%10
		for dr := -1; dr <= 1; dr++ {
			for dc := -1; dc <= 1; dc++ {
				rr, cc := r+dr, c+dc
				if rr >= 0 && rr < 10 && cc >= 0 && cc < 10 && x.Has(rr*10+cc) {
					out = out.Or(othello.Bit(sq))
				}
			}
		}
	}
	return out
}

func TestNeighbours10(t *testing.T) {
	// j10 (square 99) once leaked into a10 through a bit past the board.
	for _, x := range []othello.Bits{othello.Bit(99), othello.Bit(0), othello.Bit(9), othello.Bit(90), othello.Bit(63), othello.Bit(64), board10} {
		require.Equal(t, neighboursByHand(x), neighbours10(x), "%v", x)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		x := othello.Bits{Lo: r.Uint64() & r.Uint64(), Hi: r.Uint64() & r.Uint64()}.And(board10)
		require.Equal(t, neighboursByHand(x), neighbours10(x), "%v", x)
	}
}

// each10 calls f with every position of a random game of grand and of
// octagon (seeded by seed), p to move against o.
func each10(seed uint64, f func(m othello.Mode, pos othello.Position, p, o othello.Bits)) {
	for _, m := range []othello.Mode{othello.Grand, othello.Octagon} {
		r := rand.New(rand.NewPCG(seed, uint64(m)))
		for _, pos := range randomGame(m, r) {
			f(m, pos, pos.Discs(pos.Turn), pos.Discs(pos.Turn.Opponent()))
		}
	}
}

func TestBaseline10SymmetricPositionsScoreAlike(t *testing.T) {
	each10(7, func(m othello.Mode, pos othello.Position, p, o othello.Bits) {
		e := Baseline10(m)
		want := e.Score10(p, o)
		for k := 1; k < 8; k++ {
			require.Equal(t, want, e.Score10(transform(p, k, 10), transform(o, k, 10)), "%s symmetry %d of\n%v", m, k, pos)
		}
	})
}

func TestMobilityFeatures(t *testing.T) {
	// The four mobility features of a 10×10 position are the clamped counts
	// of legal moves and of empty squares next to the other side's discs.
	layouts := map[othello.Mode]*Layout{othello.Grand: LayoutFor(othello.Grand), othello.Octagon: LayoutFor(othello.Octagon)}
	each10(8, func(m othello.Mode, pos othello.Position, p, o othello.Bits) {
		l := layouts[m]
		empty := board10.AndNot(m.Blocked()).AndNot(p.Or(o))
		want := [4]int{
			min(othello.Legal10(p, o, m.Blocked()).Count(), mobRange-1),
			mobRange + min(othello.Legal10(o, p, m.Blocked()).Count(), mobRange-1),
			2*mobRange + min(neighboursByHand(o).And(empty).Count(), potRange-1),
			2*mobRange + potRange + min(neighboursByHand(p).And(empty).Count(), potRange-1),
		}
		got := l.mobility(p, o)
		for i := range got {
			got[i] -= l.mob
		}
		require.Equal(t, want, got, "%v", pos)
	})
}
