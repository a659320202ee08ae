package eval

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// randomPosition8 plays n random legal moves from the std start.
func randomPosition8(r *rand.Rand, n int) (p, o uint64) {
	pos := othello.New(othello.Std)
	for i := 0; i < n && !pos.GameOver(); i++ {
		legal := pos.LegalMoves()
		mv := othello.Pass
		if len(legal) > 0 {
			mv = legal[r.IntN(len(legal))]
		}
		pos, _ = pos.Play(mv)
	}
	return pos.Discs(pos.Turn).Lo, pos.Discs(pos.Turn.Opponent()).Lo
}

func TestStable8NeverFlipped(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	seen := 0
	for i := 0; i < 3000; i++ {
		p, o := randomPosition8(r, 20+r.IntN(41))
		for _, side := range [2][2]uint64{{p, o}, {o, p}} {
			own, opp := side[0], side[1]
			st := Stable8(own, opp)
			require.Equal(t, st, st&own, "stable discs are the player's")
			seen += bits.OnesCount64(st)
			// No move of the opponent flips a stable disc.
			for m := othello.Legal8(opp, own); m != 0; m &= m - 1 {
				sq := bits.TrailingZeros64(m)
				require.Zero(t, othello.Flips8(opp, own, sq)&st, "move %d flips a stable disc", sq)
			}
		}
	}
	assert.Positive(t, seen, "some discs were found stable")
}

func TestStable8Cases(t *testing.T) {
	assert.Equal(t, uint64(1), Stable8(1, 0), "a lone corner")
	assert.Zero(t, Stable8(1<<27, 1<<28), "a centre disc")
	full := ^uint64(0)
	assert.Equal(t, uint64(0xAAAAAAAAAAAAAAAA), Stable8(0xAAAAAAAAAAAAAAAA, full&^0xAAAAAAAAAAAAAAAA), "a full board")
	assert.Equal(t, uint64(0xFF), Stable8(0xFF, 0), "a full first rank of the player's discs")
}

func TestBaseline10Corners(t *testing.T) {
	corners := func(m othello.Mode) []int {
		return Baseline10(m).(*baseline10).cornerSet.Squares()
	}
	assert.Equal(t, []int{0, 9, 90, 99}, corners(othello.Grand))
	assert.Equal(t, []int{2, 7, 20, 29, 70, 79, 92, 97}, corners(othello.Octagon))
}

func TestBaselineFavoursCorners(t *testing.T) {
	// The same discs with a corner for the player score higher in std and
	// lower in anti.
	p, o := uint64(1<<27|1<<36), uint64(1<<28|1<<35)
	for _, m := range []othello.Mode{othello.Std, othello.Anti} {
		ev := Baseline8(m)
		with := ev.Score8(p|1, o, 99, 99)
		without := ev.Score8(p, o, 99, 99)
		if m == othello.Anti {
			assert.Less(t, with, without, "anti")
		} else {
			assert.Greater(t, with, without, "std")
		}
	}
	ev := Baseline10(othello.Grand)
	a, b := othello.Bit(44).Or(othello.Bit(55)), othello.Bit(45).Or(othello.Bit(54))
	assert.Greater(t, ev.Score10(a.Or(othello.Bit(0)), b), ev.Score10(a, b))
}

func TestReversiCapCounts(t *testing.T) {
	// With few empties, a player who may place nothing more has no
	// mobility and scores lower than one who may.
	p, o := randomPosition8(rand.New(rand.NewPCG(3, 4)), 50)
	ev := Baseline8(othello.Reversi)
	assert.Less(t, ev.Score8(p, o, 0, 20), ev.Score8(p, o, 20, 20))
}

// stable8Reference is the previous form of Stable8's propagation (six masks
// a step, from no stable disc), kept to check that the current one finds
// the same discs.
func stable8Reference(p, o uint64) uint64 {
	h, v, d9, d7 := fullLines8(p | o)
	h |= colA8 | colH8
	v |= row18 | row88
	d9 |= edges8
	d7 |= edges8
	var st uint64
	for {
		n := p & (h | (st<<1)&notA8 | (st>>1)&notH8) &
			(v | st<<8 | st>>8) &
			(d9 | (st<<9)&notA8 | (st>>9)&notH8) &
			(d7 | (st<<7)&notH8 | (st>>7)&notA8)
		if n == st {
			return st
		}
		st = n
	}
}

// TestStable8MatchesReference compares Stable8 with stable8Reference on
// game positions and on random boards of every density.
func TestStable8MatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 4))
	for i := range 20000 {
		var p, o uint64
		if i%2 == 0 {
			p, o = randomPosition8(r, 20+r.IntN(41))
		} else {
			full := r.Uint64() | r.Uint64() | r.Uint64()>>uint(r.IntN(64))
			p = full & r.Uint64()
			o = full &^ p
		}
		require.Equal(t, stable8Reference(p, o), Stable8(p, o), "p %#x o %#x", p, o)
		require.Equal(t, stable8Reference(o, p), Stable8(o, p), "p %#x o %#x", o, p)
	}
}
