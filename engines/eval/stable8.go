package eval

// Masks of the 8×8 board for stability.
const (
	colA8  = 0x0101010101010101
	colH8  = 0x8080808080808080
	row18  = 0xFF
	row88  = 0xFF00000000000000
	edges8 = colA8 | colH8 | row18 | row88
)

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

// fullLines8 returns, per axis, the squares whose line along that axis is
// full: horizontal, vertical, a1–h8 diagonal and h1–a8 diagonal.
func fullLines8(filled uint64) (h, v, d9, d7 uint64) {
	// Horizontal: a row is full when all its eight bits are set.
	x := filled & (filled >> 1) & (filled >> 2) & (filled >> 3)
	x &= x >> 4
	x &= colA8
	h = x * 0xFF
	// Vertical: AND the eight rows together.
	y := filled & (filled >> 8)
	y &= y >> 16
	y &= y >> 32
	v = (y & 0xFF) * colA8
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
	// Lines of one or two squares at the corners are full trivially when
	// filled; they sit on the edges, which count as stable ends anyway.
	return h, v, d9, d7
}

// Stable8 returns discs of p that can never be flipped: along each of the
// four axes the disc has the edge or a stable disc of its own colour next to
// it on one side, or its line along that axis is full.
func Stable8(p, o uint64) uint64 {
	h, v, d9, d7 := fullLines8(p | o)
	h |= colA8 | colH8
	v |= row18 | row88
	d9 |= edges8
	d7 |= edges8
	var st uint64
	// Edge discs and discs on full lines start the propagation.
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
