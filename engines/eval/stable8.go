package eval

// Masks of the 8×8 board for stability.
const (
	colA8  = 0x0101010101010101
	colH8  = 0x8080808080808080
	row18  = 0xFF
	row88  = 0xFF00000000000000
	edges8 = colA8 | colH8 | row18 | row88
)

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
	d9 = fullRay(filled, 9, 0xFF80808080808080, 0xFFFFC0C0C0C0C0C0, 0xFFFFFFFFF0F0F0F0) &
		fullRayDown(filled, 9, 0x01010101010101FF, 0x030303030303FFFF, 0x0F0F0F0FFFFFFFFF)
	d7 = fullRay(filled, 7, 0xFF01010101010101, 0xFFFF030303030303, 0xFFFFFFFF0F0F0F0F) &
		fullRayDown(filled, 7, 0x80808080808080FF, 0xC0C0C0C0C0C0FFFF, 0xF0F0F0F0FFFFFFFF)
	// Lines of one or two squares at the corners are full trivially when
	// filled; they sit on the edges, which count as stable ends anyway.
	return h, v, d9, d7
}

// fullRay returns the filled squares from which every square towards higher
// squares along direction dir, up to the edge, is filled. e1, e2 and e4 are
// the squares within 1, 2 and 4 steps of the edge in that direction.
func fullRay(filled uint64, dir uint, e1, e2, e4 uint64) uint64 {
	t := filled & (filled>>dir | e1)
	t &= t>>(2*dir) | e2
	t &= t>>(4*dir) | e4
	return t
}

// fullRayDown is fullRay towards lower squares.
func fullRayDown(filled uint64, dir uint, e1, e2, e4 uint64) uint64 {
	t := filled & (filled<<dir | e1)
	t &= t<<(2*dir) | e2
	t &= t<<(4*dir) | e4
	return t
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
	// The first step, from no stable disc: edge discs and discs on full
	// lines in every direction.
	st := p & h & v & d9 & d7
	if st == 0 {
		return 0
	}
	// Then discs next to a stable one (or held otherwise) in every
	// direction, until nothing changes. A step to a higher column is a
	// shift of the discs off column h, to a lower one of those off column
	// a: two masks a step instead of six.
	for {
		l, r := st&notH8, st&notA8
		n := p & (h | l<<1 | r>>1) &
			(v | st<<8 | st>>8) &
			(d9 | l<<9 | r>>9) &
			(d7 | r<<7 | l>>7)
		if n == st {
			return st
		}
		st = n
	}
}
