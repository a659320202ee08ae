package othello

// Masks of the 10×10 board.
var (
	board10 = Bits{Lo: ^uint64(0), Hi: 1<<36 - 1}
	colA10  = column10(0)
	colJ10  = column10(9)
	notA10  = board10.AndNot(colA10)
	notJ10  = board10.AndNot(colJ10)
)

func column10(c int) Bits {
	var b Bits
	for r := 0; r < 10; r++ {
		b = b.Or(Bit(r*10 + c))
	}
	return b
}

// dir10 is one of the eight directions of the 10×10 board: a shift by n
// towards higher (up) or lower squares, and the mask that removes the squares
// a shift wraps onto.
type dir10 struct {
	n    uint
	up   bool
	mask Bits
}

func (d dir10) shift(b Bits) Bits {
	if d.up {
		return b.shl(d.n).And(d.mask)
	}
	return b.shr(d.n).And(d.mask)
}

var dirs10 = [8]dir10{
	{1, true, notA10}, {1, false, notJ10}, // east, west
	{10, true, board10}, {10, false, board10}, // north, south
	{11, true, notA10}, {11, false, notJ10}, // north-east, south-west
	{9, true, notJ10}, {9, false, notA10}, // north-west, south-east
}

// Legal10 returns the legal moves of the player with discs p against the
// opponent with discs o on a 10×10 board whose blocked squares are blocked
// (normal rules). Blocked squares are never legal and, being empty, break
// lines. Each direction is filled for all discs at once.
func Legal10(p, o, blocked Bits) Bits {
	empty := board10.AndNot(p.Or(o).Or(blocked))
	var moves Bits
	for _, d := range dirs10 {
		t := d.shift(p).And(o)
		for !t.IsZero() {
			t = d.shift(t)
			moves = moves.Or(t.And(empty))
			t = t.And(o)
		}
	}
	return moves
}

// Flips10 returns the discs that a move of p on square sq turns over, given
// the opponent's discs o (10×10, normal rules). An empty result means the
// move is not legal.
func Flips10(p, o Bits, sq int) Bits {
	m := Bit(sq)
	var flips Bits
	for _, d := range dirs10 {
		var run Bits
		x := d.shift(m)
		for !x.And(o).IsZero() {
			run = run.Or(x)
			x = d.shift(x)
		}
		if !x.And(p).IsZero() {
			flips = flips.Or(run)
		}
	}
	return flips
}
