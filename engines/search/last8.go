package search

import "math/bits"

// lastLines8 holds, per square, the masks of its two diagonals, for
// lastFlips8.
type lastLines8 struct{ d9, d7 uint64 }

// lastTables8 is what lastFlips8 looks up: the diagonals of each square and,
// per position in a line of eight and per set of the player's squares on
// it, the discs a move there flips when every other square of the line is
// the opponent's or off the line.
type lastTables8 struct {
	lines [64]lastLines8
	count [8][256]uint8
}

var lastTab8 = makeLastTables8()

func makeLastTables8() *lastTables8 {
	t := &lastTables8{}
	for sq := range 64 {
		r, c := sq/8, sq%8
		for sq2 := range 64 {
			r2, c2 := sq2/8, sq2%8
			if r2-c2 == r-c {
				t.lines[sq].d9 |= 1 << uint(sq2)
			}
			if r2+c2 == r+c {
				t.lines[sq].d7 |= 1 << uint(sq2)
			}
		}
	}
	for pos := range 8 {
		for idx := range 256 {
			n := 0
			for _, dir := range [2]int{-1, 1} {
				for i, run := pos+dir, 0; i >= 0 && i < 8; i, run = i+dir, run+1 {
					if idx>>uint(i)&1 != 0 {
						n += run
						break
					}
				}
			}
			t.count[pos][idx] = uint8(n)
		}
	}
	return t
}

// lastFlips8 returns how many discs p flips by playing sq, the only empty
// square of the board (every other square not p's is the opponent's), without
// making the move: each of the four lines through sq is gathered into a byte
// indexed by column (row for the column line) and looked up. The last empty
// is the solver's most frequent node, and this is its fast path (Edax 4.4's
// count_last_flip, src/count_last_flip_kindergarten.c: a multiplication
// gathers a line into a byte that indexes a table of flip counts).
func lastFlips8(p uint64, sq int) int {
	t := lastTab8
	r, c := uint(sq>>3), uint(sq&7)
	l := &t.lines[sq&63]
	row := p >> (r * 8) & 0xFF
	col := (p >> c & colA8) * 0x0102040810204080 >> 56
	d9 := (p & l.d9) * colA8 >> 56
	d7 := (p & l.d7) * colA8 >> 56
	cc := &t.count[c]
	return int(cc[row]) + int(t.count[r&7][col]) + int(cc[d9]) + int(cc[d7])
}

// lastScore8 is the exact score with one empty square sq left: p plays it if
// it flips, else the opponent, else nobody. It only counts flips (lastFlips8)
// and never builds the final board.
func (t *thread) lastScore8(p uint64, sq int) int {
	discsP := bits.OnesCount64(p)
	var d int
	if n := lastFlips8(p, sq); n > 0 {
		d = 2*(discsP+n+1) - 64
	} else if n := lastFlips8(^p&^(1<<uint(sq)), sq); n > 0 {
		d = 2*(discsP-n) - 64
	} else {
		return t.endScore8(p, ^p&^(1<<uint(sq)))
	}
	if t.anti {
		return -d
	}
	return d
}
