package eval

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// readByHand returns the bits of b at squares, bit i for squares[i].
func readByHand(b othello.Bits, squares []uint8) uint64 {
	var x uint64
	for i, s := range squares {
		x |= bitAt(b, s) << i
	}
	return x
}

func TestDiagonalsReadByMultiplication(t *testing.T) {
	// Every diagonal instance of the 10×10 layout is read by multiplication,
	// and reads the same bits as the square-by-square index.
	l := LayoutFor(othello.Grand)
	diagonals := 0
	r := rand.New(rand.NewPCG(4, 4))
	for _, in := range l.instances {
		d, ok := newDiagonal10(in.squares)
		if !ok || len(bestSegments10(in.squares)) == 1 {
			continue
		}
		diagonals++
		for range 200 {
			b := othello.Bits{Lo: r.Uint64(), Hi: r.Uint64()}.And(board10)
			require.Equal(t, readByHand(b, in.squares), d.read(b), "instance %v of %s", in.squares, l.classes[in.class].name)
		}
	}
	assert.Equal(t, 26, diagonals, "2 diagonals of 10 and 4 each of 9…4 squares")
}

func TestEvenlySpacedSquaresReadByMultiplication(t *testing.T) {
	// Evenly spaced squares, fewer than their spacing in each board word,
	// are read by multiplication; others are refused.
	tests := []struct {
		name    string
		squares []uint8
		ok      bool
	}{
		{"diagonal down-right", []uint8{0, 11, 22, 33, 44, 55, 66, 77, 88, 99}, true},
		{"diagonal down-left, reversed", []uint8{90, 81, 72, 63, 54, 45, 36, 27, 18, 9}, true},
		{"a row (step 1)", []uint8{0, 1, 2, 3}, false},
		{"uneven", []uint8{0, 11, 23}, false},
		{"column, 7 squares in the low word (step 10)", []uint8{0, 10, 20, 30, 40, 50, 60, 70, 80, 90}, true},
		{"one square", []uint8{5}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := newDiagonal10(tt.squares)
			require.Equal(t, tt.ok, ok)
			if !ok {
				return
			}
			r := rand.New(rand.NewPCG(5, 5))
			for range 200 {
				b := othello.Bits{Lo: r.Uint64(), Hi: r.Uint64()}.And(board10)
				require.Equal(t, readByHand(b, tt.squares), d.read(b))
			}
		})
	}
}

// referenceScore10 is the 10×10 evaluation as a fit defines it: the sum of
// the weights of the features Layout.Features lists (each instance's
// index read square by square), clamped like Score10.
func referenceScore10(e *Pattern, p, o othello.Bits, buf []int32) int {
	l := e.layout
	ph := l.Features(p, o, 1<<20, 1<<20, false, buf)
	s := 0
	for _, x := range buf {
		s += int(e.w[ph*l.perPhase+int(x)])
	}
	return max(-e.limit, min(e.limit, s))
}

func TestScore10MatchesTheFeatureSum(t *testing.T) {
	// The generated reader and the shared mobility counts give the same
	// score as the reference on the positions of many random games and on
	// random boards (reachable or not), in both 10×10 modes, with the
	// embedded weights and with random ones.
	set, err := Embedded()
	require.NoError(t, err)
	games := 60
	if testing.Short() {
		games = 3
	}
	for _, m := range []othello.Mode{othello.Grand, othello.Octagon} {
		embedded, ok := set.Eval10(m).(*Pattern)
		require.True(t, ok, "%s plays the pattern evaluation", m)
		random, err := NewPattern(randomWeights(t, m, 21))
		require.NoError(t, err)
		for _, e := range []*Pattern{embedded, random} {
			r := rand.New(rand.NewPCG(8, uint64(m)))
			buf := make([]int32, e.layout.NumFeatures())
			checked := 0
			check := func(p, o othello.Bits) {
				require.Equal(t, referenceScore10(e, p, o, buf), e.Score10(p, o), "%s\np %v\no %v", m, p, o)
				require.Equal(t, referenceScore10(e, o, p, buf), e.Score10(o, p), "%s (other side)\np %v\no %v", m, o, p)
				checked++
			}
			for range games {
				for _, pos := range randomGame(m, r) {
					check(pos.Discs(pos.Turn), pos.Discs(pos.Turn.Opponent()))
				}
			}
			open := board10.AndNot(m.Blocked())
			for range 50 * games {
				a := othello.Bits{Lo: r.Uint64(), Hi: r.Uint64()}.And(open)
				b := othello.Bits{Lo: r.Uint64(), Hi: r.Uint64()}.And(open).AndNot(a)
				check(a, b)
			}
			assert.Greater(t, checked, 100*games)
		}
	}
}
