package eval

import "flipbot.dev/flipbot/engines/othello"

// The 10×10 fast path: the board is read once into four views of ten
// 10-bit lines — rows, columns, and both reversed — and each instance is
// gathered from the view where its squares form the fewest runs of
// consecutive squares in digit order: one shift and mask per run (a whole
// row, column or edge is one run; a diagonal is one run per square).

// views10 are a board's lines: [0] rows (bit c of line r is square (r, c)),
// [1] rows reversed (bit 9−c), [2] columns (bit r of line c), [3] columns
// reversed.
type views10 [64]uint64 // line l of view v at 10v+l; 40…63 unused

// segment10 is one run of an instance: bits pos… of line `line` of view
// `view`, masked, go to digits digit….
type segment10 struct {
	at, pos, digit uint8 // at: 10·view + line
	mask           uint16
}

// fast10 is the fast path's view of a 10×10 layout.
type fast10 struct {
	segs   [][]segment10 // per instance read from the views
	offset []int         // per instance read from the views: its class's first weight
	diags  []diagonal10  // the instances read by multiplication
}

func newFast10(l *Layout) *fast10 {
	f := &fast10{}
	for _, in := range l.instances {
		var best []segment10
		for v := uint8(0); v < 4; v++ {
			segs := segments10(in.squares, v)
			if best == nil || len(segs) < len(best) {
				best = segs
			}
		}
		if d, ok := newDiagonal10(in.squares); ok && len(best) > 1 {
			d.offset = l.offset[in.class]
			f.diags = append(f.diags, d)
			continue
		}
		f.segs = append(f.segs, best)
		f.offset = append(f.offset, l.offset[in.class])
	}
	return f
}

// A diagonal10 is an instance whose squares are evenly spaced k ≥ 2 apart
// (a diagonal: 11 or 9), read straight from the board's two words: each
// word's part is masked and gathered into consecutive bits by one
// multiplication, which cannot carry (see progression).
type diagonal10 struct {
	lo, hi progression
	nLo    uint8 // squares in the low word (the first ones in square order)
	n      uint8
	rev    bool // digit 0 is the last square in square order
	offset int
}

// progression gathers m bits at positions a, a+k, …, a+k(m−1) of a word
// into bits 0…m−1: (x>>a & mask) · mul >> down. Bit a+ki times the term
// 2^(c−(k−1)j) of mul lands at c + ki − (k−1)j; these positions are
// distinct for 0 ≤ i, j < m when m < k (k and k−1 are coprime), so the
// product is a sum without carries, and the i = j terms, at c…c+m−1, are
// the only ones in that window.
type progression struct {
	shift, down uint8
	mask, mul   uint64
	keep        uint64
}

func newProgression(a, k, m int) progression {
	if m == 0 {
		return progression{}
	}
	c := (k - 1) * (m - 1)
	g := progression{shift: uint8(a), down: uint8(c), keep: 1<<m - 1}
	for i := 0; i < m; i++ {
		g.mask |= 1 << (k * i)
		g.mul |= 1 << (c - (k-1)*i)
	}
	return g
}

func (g *progression) read(x uint64) uint64 {
	return (x >> (g.shift & 63) & g.mask) * g.mul >> (g.down & 63) & g.keep
}

// newDiagonal10 returns the multiplication reader of squares when they are
// evenly spaced, in either order.
func newDiagonal10(squares []uint8) (diagonal10, bool) {
	n := len(squares)
	if n < 2 || n > 10 {
		return diagonal10{}, false
	}
	sq := make([]int, n)
	for i, s := range squares {
		sq[i] = int(s)
	}
	d := diagonal10{n: uint8(n)}
	if sq[1] < sq[0] {
		d.rev = true
		for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
			sq[i], sq[j] = sq[j], sq[i]
		}
	}
	k := sq[1] - sq[0]
	if k < 2 {
		return diagonal10{}, false
	}
	for i := range sq {
		if sq[i] != sq[0]+i*k {
			return diagonal10{}, false
		}
	}
	nLo := 0
	for nLo < n && sq[nLo] < 64 {
		nLo++
	}
	if nLo >= k || n-nLo >= k {
		return diagonal10{}, false
	}
	d.nLo = uint8(nLo)
	d.lo = newProgression(sq[0], k, nLo)
	if nLo < n {
		d.hi = newProgression(sq[nLo]-64, k, n-nLo)
	}
	return d, true
}

// read returns the instance's bits of b, bit i for digit i.
func (d *diagonal10) read(b othello.Bits) uint64 {
	x := d.lo.read(b.Lo) | d.hi.read(b.Hi)<<(d.nLo&63)
	if d.rev {
		x = uint64(rev10[x&0x3FF]) >> (10 - d.n&15)
	}
	return x
}

// coord10 returns square sq's line and bit in view v.
func coord10(sq int, v uint8) (line, pos int) {
	r, c := sq/10, sq%10
	switch v {
	case 1:
		return r, 9 - c
	case 2:
		return c, r
	case 3:
		return c, 9 - r
	}
	return r, c
}

// segments10 splits squares (in digit order) into runs in view v.
func segments10(squares []uint8, v uint8) []segment10 {
	var out []segment10
	for i := 0; i < len(squares); {
		line, pos := coord10(int(squares[i]), v)
		j := i + 1
		for j < len(squares) {
			l2, p2 := coord10(int(squares[j]), v)
			if l2 != line || p2 != pos+(j-i) {
				break
			}
			j++
		}
		out = append(out, segment10{at: 10*v + uint8(line), pos: uint8(pos), digit: uint8(i), mask: uint16(1)<<(j-i) - 1})
		i = j
	}
	return out
}

// rev10 reverses 10 bits.
var rev10 = func() (t [1024]uint16) {
	for x := range t {
		for i := 0; i < 10; i++ {
			if x>>i&1 == 1 {
				t[x] |= 1 << (9 - i)
			}
		}
	}
	return t
}()

// makeViews10 reads b into its four views.
func makeViews10(b othello.Bits, v *views10) {
	for r := 0; r < 10; r++ {
		off := uint(10 * r)
		var x uint64
		switch {
		case off+10 <= 64:
			x = b.Lo >> off
		case off >= 64:
			x = b.Hi >> (off - 64)
		default:
			x = b.Lo>>off | b.Hi<<(64-off)
		}
		x &= 0x3FF
		v[r] = x
		v[10+r] = uint64(rev10[x])
	}
	// Column c: shift the board right by c, then pack the bits at 10r
	// (r = 0…6 in the low word, 7…9 in the high word) by multiplications
	// that move bit 10r to 54+r (and 18+r−7), without carries.
	const (
		loMask = 1 | 1<<10 | 1<<20 | 1<<30 | 1<<40 | 1<<50 | 1<<60
		loMul  = 1 | 1<<9 | 1<<18 | 1<<27 | 1<<36 | 1<<45 | 1<<54
		hiMask = 1 | 1<<10 | 1<<20
		hiMul  = 1 | 1<<9 | 1<<18
	)
	for c := uint(0); c < 10; c++ {
		lo := b.Lo>>c | b.Hi<<(64-c)
		if c == 0 {
			lo = b.Lo
		}
		hi := b.Hi >> c
		col := (lo&loMask)*loMul>>54&0x7F | ((hi>>6&hiMask)*hiMul>>18&7)<<7
		v[20+c] = col
		v[30+c] = uint64(rev10[col])
	}
}

// score sums the weights of one phase (w) for p, o.
func (f *fast10) score(w []int16, p, o othello.Bits) int {
	var vp, vo views10
	makeViews10(p, &vp)
	makeViews10(o, &vo)
	s := 0
	for i, segs := range f.segs {
		var pb, ob uint64
		for _, sg := range segs {
			m := uint64(sg.mask)
			pb |= (vp[sg.at&63] >> (sg.pos & 63) & m) << (sg.digit & 63)
			ob |= (vo[sg.at&63] >> (sg.pos & 63) & m) << (sg.digit & 63)
		}
		s += int(w[f.offset[i]+t10(pb, ob)])
	}
	for i := range f.diags {
		d := &f.diags[i]
		s += int(w[d.offset+t10(d.read(p), d.read(o))])
	}
	return s
}
