package eval

import "flipbot.dev/flipbot/engines/othello"

// Baseline10 returns the hand-made evaluation of a 10×10 mode (grand,
// octagon): mobility, potential mobility, corners and the X- and C-squares
// next to empty corners, parity. A "corner" is a square that can never be
// flipped: along every axis it has the edge or a blocked square beside it —
// the four corners in grand, c1, a3 and their mirror images in octagon.
func Baseline10(mode othello.Mode) Evaluator10 {
	b := &baseline10{w: baselineWeights(mode), blocked: mode.Blocked()}
	b.playable = board10.AndNot(b.blocked)
	for sq := 0; sq < 100; sq++ {
		if b.playable.Has(sq) && b.unflippable(sq) {
			b.corners = append(b.corners, b.cornerOf(sq))
			b.cornerSet = b.cornerSet.Or(othello.Bit(sq))
		}
	}
	// Neighbours of several corners count once, for the nearest corner.
	for i := range b.corners {
		b.corners[i].x = b.corners[i].x.AndNot(b.cornerSet)
		b.corners[i].c = b.corners[i].c.AndNot(b.cornerSet)
	}
	return b
}

var board10 = othello.Bits{Lo: ^uint64(0), Hi: 1<<36 - 1}

type corner10 struct {
	sq   othello.Bits
	x, c othello.Bits
}

type baseline10 struct {
	w                 weights
	blocked, playable othello.Bits
	corners           []corner10
	cornerSet         othello.Bits
}

// on reports whether (r, c) is a playable square.
func (b *baseline10) on(r, c int) bool {
	return r >= 0 && r < 10 && c >= 0 && c < 10 && b.playable.Has(r*10+c)
}

// unflippable reports whether every axis through sq ends beside it.
func (b *baseline10) unflippable(sq int) bool {
	r, c := sq/10, sq%10
	for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		if b.on(r+d[0], c+d[1]) && b.on(r-d[0], c-d[1]) {
			return false
		}
	}
	return true
}

// cornerOf returns the corner at sq with its playable diagonal (X) and
// orthogonal (C) neighbours.
func (b *baseline10) cornerOf(sq int) corner10 {
	r, c := sq/10, sq%10
	k := corner10{sq: othello.Bit(sq)}
	for dr := -1; dr <= 1; dr++ {
		for dc := -1; dc <= 1; dc++ {
			if (dr == 0 && dc == 0) || !b.on(r+dr, c+dc) {
				continue
			}
			n := othello.Bit((r+dr)*10 + c + dc)
			if dr != 0 && dc != 0 {
				k.x = k.x.Or(n)
			} else {
				k.c = k.c.Or(n)
			}
		}
	}
	return k
}

// neighbours10 returns the squares of the board next to any square of x.
func neighbours10(x othello.Bits) othello.Bits {
	l := shr10(x, 1).AndNot(colJ10)
	r := shl10(x, 1).AndNot(colA10).And(board10) // j10 must not reach a "square 100"
	h := x.Or(l).Or(r)
	return h.Or(shl10(h, 10)).Or(shr10(h, 10)).And(board10).AndNot(x)
}

var (
	colA10 = column10(0)
	colJ10 = column10(9)
)

func column10(c int) othello.Bits {
	var b othello.Bits
	for r := 0; r < 10; r++ {
		b = b.Or(othello.Bit(r*10 + c))
	}
	return b
}

func shl10(b othello.Bits, n uint) othello.Bits {
	return othello.Bits{Lo: b.Lo << n, Hi: b.Hi<<n | b.Lo>>(64-n)}
}

func shr10(b othello.Bits, n uint) othello.Bits {
	return othello.Bits{Lo: b.Lo>>n | b.Hi<<(64-n), Hi: b.Hi >> n}
}

// Score10 implements [Evaluator10].
func (b *baseline10) Score10(p, o othello.Bits) int {
	w := &b.w
	empty := b.playable.AndNot(p.Or(o))
	mp := othello.Legal10(p, o, b.blocked).Count()
	mo := othello.Legal10(o, p, b.blocked).Count()
	s := w.mobility * (mp - mo)
	s += w.potential * (neighbours10(o).And(empty).Count() - neighbours10(p).And(empty).Count())
	s += w.corner * (p.And(b.cornerSet).Count() - o.And(b.cornerSet).Count())
	for i := range b.corners {
		k := &b.corners[i]
		if !empty.And(k.sq).IsZero() {
			s += w.xSquare * (p.And(k.x).Count() - o.And(k.x).Count())
			s += w.cSquare * (p.And(k.c).Count() - o.And(k.c).Count())
		}
	}
	n := empty.Count()
	if n < 20 {
		if n&1 == 1 {
			s += w.parity
		} else {
			s -= w.parity
		}
	}
	return s
}
