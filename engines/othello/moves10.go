package othello

// Board10 returns every square of the 10×10 board, blocked ones included:
// the one definition of the board's mask for the rules, the search and the
// evaluation.
func Board10() Bits { return Bits{Lo: ^uint64(0), Hi: 1<<36 - 1} }

// Masks of the 10×10 board.
var (
	colA10  = column10(0)
	colJ10  = column10(9)
	inner10 = Board10().AndNot(colA10).AndNot(colJ10)
)

func column10(c int) Bits {
	var b Bits
	for r := 0; r < 10; r++ {
		b = b.Or(Bit(r*10 + c))
	}
	return b
}

// Legal10 returns the legal moves of the player with discs p against the
// opponent with discs o on a 10×10 board whose blocked squares are blocked
// (normal rules). Blocked squares are never legal and, being empty, break
// lines. Each direction is filled for all discs at once, with constant
// shifts on the two words: a run has at most eight discs, which two single
// steps, one step of two over the prefilled pairs and one of four over the
// prefilled quadruples reach (1+1+2+4; Kogge and Stone's parallel prefix).
func Legal10(p, o, blocked Bits) Bits {
	empty := Board10().AndNot(p.Or(o).Or(blocked))
	in := o.And(inner10)
	var l, r, pl, pr, m Bits

	// east/west (±1)
	l = p.shl(1).And(in)
	r = p.shr(1).And(in)
	l = l.Or(l.shl(1).And(in))
	r = r.Or(r.shr(1).And(in))
	pl = in.And(in.shl(1))
	pr = pl.shr(1)
	l = l.Or(l.shl(2).And(pl))
	r = r.Or(r.shr(2).And(pr))
	l = l.Or(l.shl(4).And(pl.And(pl.shl(2))))
	r = r.Or(r.shr(4).And(pr.And(pr.shr(2))))
	m = m.Or(l.shl(1)).Or(r.shr(1))

	// north/south (±10)
	l = p.shl(10).And(o)
	r = p.shr(10).And(o)
	l = l.Or(l.shl(10).And(o))
	r = r.Or(r.shr(10).And(o))
	pl = o.And(o.shl(10))
	pr = pl.shr(10)
	l = l.Or(l.shl(20).And(pl))
	r = r.Or(r.shr(20).And(pr))
	l = l.Or(l.shl(40).And(pl.And(pl.shl(20))))
	r = r.Or(r.shr(40).And(pr.And(pr.shr(20))))
	m = m.Or(l.shl(10)).Or(r.shr(10))

	// north-east/south-west (±11)
	l = p.shl(11).And(in)
	r = p.shr(11).And(in)
	l = l.Or(l.shl(11).And(in))
	r = r.Or(r.shr(11).And(in))
	pl = in.And(in.shl(11))
	pr = pl.shr(11)
	l = l.Or(l.shl(22).And(pl))
	r = r.Or(r.shr(22).And(pr))
	l = l.Or(l.shl(44).And(pl.And(pl.shl(22))))
	r = r.Or(r.shr(44).And(pr.And(pr.shr(22))))
	m = m.Or(l.shl(11)).Or(r.shr(11))

	// north-west/south-east (±9)
	l = p.shl(9).And(in)
	r = p.shr(9).And(in)
	l = l.Or(l.shl(9).And(in))
	r = r.Or(r.shr(9).And(in))
	pl = in.And(in.shl(9))
	pr = pl.shr(9)
	l = l.Or(l.shl(18).And(pl))
	r = r.Or(r.shr(18).And(pr))
	l = l.Or(l.shl(36).And(pl.And(pl.shl(18))))
	r = r.Or(r.shr(36).And(pr.And(pr.shr(18))))
	m = m.Or(l.shl(9)).Or(r.shr(9))

	return m.And(empty)
}

// Flips10 returns the discs that a move of p on square sq turns over, given
// the opponent's discs o (10×10, normal rules). An empty result means the
// move is not legal. Each direction walks its run of opponent discs with a
// constant shift; a run along a row or a diagonal never includes columns a
// and j, which keeps shifts from wrapping.
func Flips10(p, o Bits, sq int) Bits {
	m := Bit(sq)
	in := o.And(inner10)
	var f, run, x Bits

	// east
	run = Bits{}
	for x = m.shl(1).And(in); !x.IsZero(); x = x.And(in) {
		run = run.Or(x)
		if x = x.shl(1); !x.And(p).IsZero() {
			f = f.Or(run)
			break
		}
	}

	// west
	run = Bits{}
	for x = m.shr(1).And(in); !x.IsZero(); x = x.And(in) {
		run = run.Or(x)
		if x = x.shr(1); !x.And(p).IsZero() {
			f = f.Or(run)
			break
		}
	}

	// north
	run = Bits{}
	for x = m.shl(10).And(o); !x.IsZero(); x = x.And(o) {
		run = run.Or(x)
		if x = x.shl(10); !x.And(p).IsZero() {
			f = f.Or(run)
			break
		}
	}

	// south
	run = Bits{}
	for x = m.shr(10).And(o); !x.IsZero(); x = x.And(o) {
		run = run.Or(x)
		if x = x.shr(10); !x.And(p).IsZero() {
			f = f.Or(run)
			break
		}
	}

	// north-east
	run = Bits{}
	for x = m.shl(11).And(in); !x.IsZero(); x = x.And(in) {
		run = run.Or(x)
		if x = x.shl(11); !x.And(p).IsZero() {
			f = f.Or(run)
			break
		}
	}

	// south-west
	run = Bits{}
	for x = m.shr(11).And(in); !x.IsZero(); x = x.And(in) {
		run = run.Or(x)
		if x = x.shr(11); !x.And(p).IsZero() {
			f = f.Or(run)
			break
		}
	}

	// north-west
	run = Bits{}
	for x = m.shl(9).And(in); !x.IsZero(); x = x.And(in) {
		run = run.Or(x)
		if x = x.shl(9); !x.And(p).IsZero() {
			f = f.Or(run)
			break
		}
	}

	// south-east
	run = Bits{}
	for x = m.shr(9).And(in); !x.IsZero(); x = x.And(in) {
		run = run.Or(x)
		if x = x.shr(9); !x.And(p).IsZero() {
			f = f.Or(run)
			break
		}
	}

	return f
}
