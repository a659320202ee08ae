package search

import (
	"math/bits"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// TestStabilityCut8IsABound checks the stability cutoff against a plain
// minimax: whenever it cuts at some alpha, the position's exact score is at
// most the bound it returns (and the bound is at most alpha). Positions at
// 4–10 empties of random std and anti games, every alpha from the
// threshold up.
func TestStabilityCut8IsABound(t *testing.T) {
	t.Parallel()
	per := 60
	if testing.Short() {
		per = 20
	}
	for _, m := range []othello.Mode{othello.Std, othello.Anti} {
		cuts := 0
		for i := range per {
			pos := randomGame(m, 4+i%7, uint64(i)*7919+uint64(m)*131+5)
			th := &thread{anti: m == othello.Anti}
			p, o := pos.Discs(pos.Turn).Lo, pos.Discs(pos.Turn.Opponent()).Lo
			n := 64 - pc(p|o)
			exact := -1000
			for alpha := stabilityThreshold[n]; alpha <= 64; alpha++ {
				up, cut := th.stabilityCut8(p, o, alpha, n)
				if !cut {
					continue
				}
				if exact == -1000 {
					exact = refSolve(pos)
				}
				cuts++
				require.LessOrEqual(t, up, alpha, "%s alpha %d\n%s", m, alpha, pos)
				require.LessOrEqual(t, exact, up, "%s: the cut's bound is below the score (alpha %d)\n%s", m, alpha, pos)
			}
		}
		assert.Positive(t, cuts, "%s: no position was cut; the test proves nothing", m)
		t.Logf("%s: %d cuts", m, cuts)
	}
}

// cornerStable8 counts held corners and the held edge squares next to them.
func TestCornerStable8(t *testing.T) {
	const (
		a1, b1, g1, h1 = 0, 1, 6, 7
		a2, h2         = 8, 15
		a7, h7         = 48, 55
		a8, b8, g8, h8 = 56, 57, 62, 63
	)
	sq := func(s ...int) (x uint64) {
		for _, v := range s {
			x |= 1 << uint(v)
		}
		return x
	}
	for _, tc := range []struct {
		name string
		x    uint64
		want int
	}{
		{"nothing", 0, 0},
		{"C-squares without their corners", sq(b1, g1, a2, h2, a7, h7, b8, g8), 0},
		{"one corner", sq(a1), 1},
		{"a1 with b1 and a2", sq(a1, b1, a2), 3},
		{"h1 with g1 and h2", sq(h1, g1, h2), 3},
		{"a8 with b8 and a7", sq(a8, b8, a7), 3},
		{"h8 with g8 and h7", sq(h8, g8, h7), 3},
		{"a corner does not anchor another corner's neighbours", sq(a1, g1, h2, a7, g8), 1},
		{"every corner and every C-square", sq(a1, b1, g1, h1, a2, h2, a7, h7, a8, b8, g8, h8), 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, cornerStable8(tc.x))
		})
	}
}

// fastKey8 puts a wipe-out first and otherwise prefers the move that
// leaves the opponent fewer replies, whatever the lesser terms say.
func TestFastKey8Order(t *testing.T) {
	const all = ^uint64(0)
	// A wipe-out beats a move that leaves the opponent no reply; in anti,
	// where it loses, it comes after.
	std, anti := &thread{}, &thread{anti: true}
	noReply := std.fastKey8(1<<63, 1<<0, all&^(1<<0|1<<63), 27, false, 10)
	assert.Greater(t, std.fastKey8(0, 1<<27, all&^(1<<27), 27, false, 10), noReply)
	assert.Less(t, anti.fastKey8(0, 1<<27, all&^(1<<27), 27, false, 10), noReply)
	// From random positions: among the moves, one reply less always
	// outranks corner stability, potential mobility, parity and square.
	for i := range 200 {
		pos := randomGame(othello.Std, 8+i%6, uint64(i)*104729+17)
		p, o := pos.Discs(pos.Turn).Lo, pos.Discs(pos.Turn.Opponent()).Lo
		empty := ^(p | o)
		type cand struct{ key, replies int }
		var cs []cand
		for m := othello.Legal8(p, o); m != 0; m &= m - 1 {
			s := bits.TrailingZeros64(m)
			b := uint64(1) << uint(s)
			f := othello.Flips8(p, o, s)
			np, no := o&^f, p|f|b
			if np == 0 {
				continue
			}
			r := othello.Legal8(np, no)
			cs = append(cs, cand{std.fastKey8(np, no, empty&^b, s, i%2 == 0, 64-pc(p|o)), weighted8(r)})
		}
		for _, a := range cs {
			for _, b := range cs {
				if a.replies < b.replies {
					require.Greater(t, a.key, b.key, "position %d", i)
				}
			}
		}
	}
}
