package othello

// notEdges8 masks out columns a and h: a run of discs flipped along a row or
// a diagonal never includes them, which stops shifts from wrapping rows.
const notEdges8 = 0x7E7E7E7E7E7E7E7E

// Legal8 returns the legal moves of the player with discs p against the
// opponent with discs o on an 8×8 board (normal rules: a move must flip).
// All eight directions are filled at once by shifts; no square is visited.
// A run of flipped discs has at most six discs: two single steps, then two
// doubling steps. The shifts are constants so that the compiler keeps the
// whole function in registers (a loop over directions runs 3× slower).
func Legal8(p, o uint64) uint64 {
	in := o & notEdges8

	// ±1 (rows)
	l := in & (p << 1)
	r := in & (p >> 1)
	l |= in & (l << 1)
	r |= in & (r >> 1)
	pl := in & (in << 1)
	pr := pl >> 1
	l |= pl & (l << 2)
	r |= pr & (r >> 2)
	l |= pl & (l << 2)
	r |= pr & (r >> 2)
	m := l<<1 | r>>1

	// ±8 (columns)
	l = o & (p << 8)
	r = o & (p >> 8)
	l |= o & (l << 8)
	r |= o & (r >> 8)
	pl = o & (o << 8)
	pr = pl >> 8
	l |= pl & (l << 16)
	r |= pr & (r >> 16)
	l |= pl & (l << 16)
	r |= pr & (r >> 16)
	m |= l<<8 | r>>8

	// ±7 (anti-diagonals)
	l = in & (p << 7)
	r = in & (p >> 7)
	l |= in & (l << 7)
	r |= in & (r >> 7)
	pl = in & (in << 7)
	pr = pl >> 7
	l |= pl & (l << 14)
	r |= pr & (r >> 14)
	l |= pl & (l << 14)
	r |= pr & (r >> 14)
	m |= l<<7 | r>>7

	// ±9 (diagonals)
	l = in & (p << 9)
	r = in & (p >> 9)
	l |= in & (l << 9)
	r |= in & (r >> 9)
	pl = in & (in << 9)
	pr = pl >> 9
	l |= pl & (l << 18)
	r |= pr & (r >> 18)
	l |= pl & (l << 18)
	r |= pr & (r >> 18)
	m |= l<<9 | r>>9

	return m &^ (p | o)
}

// Flips8 finds a move's flips line by line, the "kindergarten" way of
// Edax's src/flip_kindergarten.c and src/flip_carry_64.c (Richard Delorme and
// Toshihiko Okuhara, Edax 4.4): each of the four lines through the square is
// gathered into the top byte by a multiplication (by a per-square multiplier
// for the row and the column; by 0x0101010101010101 for the diagonals, which
// have one square a row), indexed by the position in the line; a table gives
// the squares that would outflank the opponent's discs next to the move on
// that line (from the opponent's inner squares), the player's discs keep the
// real ones, and a second table gives the discs between them and the move,
// which a multiplication masked by the line puts back on the board. No shift
// by a variable, no leading-zero count: 86 instructions a call on amd64
// against 123 for resolving the seven rays one by one (the form kept in
// moves8_test.go as the reference).

// flipTables8 is what Flips8 looks up.
type flipTables8 struct {
	// outflank[pos][inner] is, for a move at position pos of a line of
	// eight whose opponent discs are inner (its squares 1–7 as bits 0–6;
	// square 7 is ignored, a run that reaches it is never outflanked),
	// the squares of the line that end a run of at least one opponent
	// disc next to the move, on either side: the player's disc must be
	// there for the run to flip.
	outflank [8][128]uint8
	// flipped[pos][out] is the squares between pos and the outflanking
	// squares out (a subset of outflank's).
	flipped [8][256]uint8
	// lines[sq] is what gathers and spreads the column and the
	// diagonals of sq (flipLines8).
	lines [64]flipLines8
}

// flipLines8 holds the masks and multipliers of a square's column and
// diagonals, so that Flips8 needs no shift by the square's column.
type flipLines8 struct {
	// row is the row; rowIn moves it to the top byte, rowOut back.
	row, rowIn, rowOut uint64
	// col is the column; colIn gathers it into the top byte, row i as
	// bit i; colOut spreads a byte of flipped rows (never rows 1 or 8) back
	// onto it.
	col, colIn, colOut uint64
	// d9 and d7 are the diagonals through the square: +9 (a1–h8) and +7
	// (h1–a8); one square a row, so colA8Mul gathers each by column.
	d9, d7 uint64
}

// flipTab8 is the table of Flips8.
var flipTab8 = makeFlipTables8()

func makeFlipTables8() (t flipTables8) {
	for pos := range 8 {
		for inner := range 128 {
			line := inner & 0x3F << 1 // the opponent's discs as squares 1–6
			var out uint8
			for _, dir := range [2]int{-1, 1} {
				i := pos + dir
				for i >= 0 && i < 8 && line>>uint(i)&1 != 0 {
					i += dir
				}
				if i >= 0 && i < 8 && i != pos+dir {
					out |= 1 << uint(i)
				}
			}
			t.outflank[pos][inner] = out
		}
		for out := range 256 {
			var f uint8
			for _, dir := range [2]int{-1, 1} {
				for i := pos + dir; i >= 0 && i < 8; i += dir {
					if out>>uint(i)&1 != 0 {
						for j := pos + dir; j != i; j += dir {
							f |= 1 << uint(j)
						}
						break
					}
				}
			}
			t.flipped[pos][out] = f
		}
	}
	for sq := range 64 {
		r, c := sq/8, sq%8
		l := &t.lines[sq]
		l.row = 0xFF << uint(r*8)
		l.rowIn = 1 << uint(56-r*8)
		l.rowOut = 1 << uint(r*8)
		l.col = colA8Mul << uint(c)
		l.colIn = colGather8 >> uint(c)
		l.colOut = colSpread8 << uint(c)
		for sq2 := range 64 {
			r2, c2 := sq2/8, sq2%8
			if r2-c2 == r-c {
				l.d9 |= 1 << uint(sq2)
			}
			if r2+c2 == r+c {
				l.d7 |= 1 << uint(sq2)
			}
		}
	}
	return t
}

// Gathering multipliers: colA8Mul sums the eight bytes of a word into its
// top byte (one square per row, so no carries); colGather8 moves column a's
// squares into the top byte, row i as bit i; colSpread8 puts bit i of a
// byte on square i*8 (bit i lands at i+7k for each k, on a multiple of
// eight only for k = i, and no two terms meet while bits 0 and 7 are clear).
const (
	colA8Mul   = 0x0101010101010101
	colGather8 = 0x0102040810204080
	colSpread8 = 0x0002040810204081
)

// Flips8 returns the discs that a move of p on square sq turns over, given
// the opponent's discs o (8×8, normal rules). It does not check that sq is
// empty; an empty result means the move is not legal.
func Flips8(p, o uint64, sq int) uint64 {
	t := &flipTab8
	sq &= 63
	r, c := uint(sq>>3), uint(sq&7)
	of, fl := &t.outflank[c], &t.flipped[c]

	l := &t.lines[sq]

	// The row: position c, moved to the top byte.
	m := l.row
	out := of[(o&m)*l.rowIn>>57] & uint8((p&m)*l.rowIn>>56)
	f := uint64(fl[out]) * l.rowOut

	// The column: position r, gathered with row i as bit i.
	m = l.col
	out = t.outflank[r&7][(o&m)*l.colIn>>57] & uint8((p&m)*l.colIn>>56)
	f |= uint64(t.flipped[r&7][out]) * l.colOut & m

	// The diagonals: position c, gathered with column j as bit j.
	m = l.d9
	out = of[(o&m)*colA8Mul>>57] & uint8((p&m)*colA8Mul>>56)
	f |= uint64(fl[out]) * colA8Mul & m
	m = l.d7
	out = of[(o&m)*colA8Mul>>57] & uint8((p&m)*colA8Mul>>56)
	f |= uint64(fl[out]) * colA8Mul & m
	return f
}
