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
	f := newFast10(l)
	assert.Len(t, f.diags, 26, "2 diagonals of 10 and 4 each of 9…4 squares")
	assert.Len(t, f.segs, len(l.instances)-26)
	r := rand.New(rand.NewPCG(4, 4))
	for _, in := range l.instances {
		d, ok := newDiagonal10(in.squares)
		if !ok {
			continue
		}
		for range 200 {
			b := othello.Bits{Lo: r.Uint64(), Hi: r.Uint64()}.And(board10)
			require.Equal(t, readByHand(b, in.squares), d.read(b), "instance %v of %s", in.squares, l.classes[in.class].name)
		}
	}
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
