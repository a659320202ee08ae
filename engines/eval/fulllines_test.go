package eval

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// fullDiagonalsByLines is the plain definition: a diagonal line is full
// when every square of it is filled.
func fullDiagonalsByLines(filled uint64) (d9, d7 uint64) {
	for _, l := range diag9Lines8 {
		if filled&l == l {
			d9 |= l
		}
	}
	for _, l := range diag7Lines8 {
		if filled&l == l {
			d7 |= l
		}
	}
	return d9, d7
}

func TestFullDiagonals(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		// Dense random boards, so that full lines are common.
		filled := r.Uint64() | r.Uint64() | r.Uint64()
		if i%3 == 0 {
			filled |= r.Uint64() | r.Uint64()
		}
		_, _, d9, d7 := fullLines8(filled)
		w9, w7 := fullDiagonalsByLines(filled)
		// Lines of length 1 and 2 (corners) are not in the line lists.
		short := uint64(1|1<<7|1<<56|1<<63) | 1<<6 | 1<<15 | 1<<48 | 1<<57 | 1<<1 | 1<<8 | 1<<55 | 1<<62
		require.Equal(t, w9&^short, d9&^short, "d9 of %#x", filled)
		require.Equal(t, w7&^short, d7&^short, "d7 of %#x", filled)
	}
}

// diag9Lines8 and diag7Lines8 list every line of the 8×8 board along the two diagonal axes
// (lines of length ≥ 3), for the full-line test of stability.
var diag9Lines8, diag7Lines8 = makeDiagLines8()

func makeDiagLines8() (d9, d7 [11]uint64) {
	n := 0
	for start := -5; start <= 5; start++ {
		var a, b uint64
		for r := 0; r < 8; r++ {
			c := r - start // a1-h8 direction: col - row constant
			if c >= 0 && c < 8 {
				a |= 1 << uint(r*8+c)
			}
			c2 := 7 - r + start // a8-h1 direction: col + row constant
			if c2 >= 0 && c2 < 8 {
				b |= 1 << uint(r*8+c2)
			}
		}
		d9[n], d7[n] = a, b
		n++
	}
	return d9, d7
}
