package eval

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// The generator of fast10_gen.go: the 10×10 layout's pattern sum written
// out instance by instance, so that every shift, mask, multiplier and
// weight offset is a constant (no loop over a segment table, no views of
// the board that an instance does not read). `go generate` runs
// TestFast10GeneratedIsCurrent with -update; without it the test fails
// when the committed file differs from what the layout generates.

var update = flag.Bool("update", false, "rewrite generated files")

const fast10GenFile = "fast10_gen.go"

func TestFast10GeneratedIsCurrent(t *testing.T) {
	src, err := genFast10(LayoutFor(othello.Grand))
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile(fast10GenFile, src, 0o644))
		return
	}
	have, err := os.ReadFile(fast10GenFile)
	require.NoError(t, err)
	require.True(t, bytes.Equal(src, have), "%s is not what the layout generates: run go generate ./engines/eval", fast10GenFile)
}

func TestTenByTenLayoutsShareTheirInstances(t *testing.T) {
	// fast10_gen.go is generated from grand's layout and serves octagon too:
	// the blocked squares change the phases, not the instances or offsets.
	g, o := LayoutFor(othello.Grand), LayoutFor(othello.Octagon)
	require.Equal(t, g.instances, o.instances)
	require.Equal(t, g.offset, o.offset)
	require.Equal(t, g.extra, o.extra)
}

// segment10 is one run of an instance's squares on one line of the board:
// bits pos… (mask) of line `line` of view `view` are digits digit….
// Views: 0 rows (bit c of line r is square (r, c)), 1 rows reversed (bit
// 9−c), 2 columns (bit r of line c), 3 columns reversed.
type segment10 struct {
	view, line, pos, digit, n int
}

// coord10 returns square sq's line and bit in view v.
func coord10(sq int, v int) (line, pos int) {
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
func segments10(squares []uint8, v int) []segment10 {
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
		out = append(out, segment10{view: v, line: line, pos: pos, digit: i, n: j - i})
		i = j
	}
	return out
}

// bestSegments10 returns the view in which squares form the fewest runs.
func bestSegments10(squares []uint8) []segment10 {
	var best []segment10
	for v := 0; v < 4; v++ {
		if segs := segments10(squares, v); best == nil || len(segs) < len(best) {
			best = segs
		}
	}
	return best
}

// lineVar names line i of kind k (0 row, 1 column) of board b.
func lineVar(b string, k, i int) string { return fmt.Sprintf("%s%c%d", b, "rc"[k], i) }

// runs writes the bits expression of an instance read from lines for
// board b and adds the lines it reads to used. A reversed view is read
// from the forward line with the digits in reverse order (bit n−1−d holds
// digit d), which tri10rev undoes.
func runs(b string, segs []segment10, n int, used map[int]bool) string {
	var terms []string
	for _, s := range segs {
		k := s.view / 2
		used[10*k+s.line] = true
		pos, at := s.pos, s.digit
		if s.view%2 == 1 {
			pos, at = 9-s.pos-s.n+1, n-s.digit-s.n
		}
		x := lineVar(b, k, s.line)
		if pos > 0 {
			x = fmt.Sprintf("%s>>%d", x, pos)
		}
		if pos+s.n < 10 {
			x = fmt.Sprintf("%s&%#x", x, 1<<s.n-1)
		}
		if at > 0 {
			x = fmt.Sprintf("(%s)<<%d", x, at)
		}
		terms = append(terms, x)
	}
	return strings.Join(terms, " | ")
}

// lineExpr writes line i of kind k (0 row, 1 column) of board b: a row
// by shifts, a column by the multiplications of a progression.
func lineExpr(b string, k, i int) (string, error) {
	if k == 1 {
		d, ok := newDiagonal10(columnSquares10(i))
		if !ok {
			return "", fmt.Errorf("column %d is not read by multiplication", i)
		}
		return diagonalExpr(b, d), nil
	}
	switch off := 10 * i; {
	case off+10 <= 64:
		return fmt.Sprintf("%s.Lo>>%d&0x3ff", b, off), nil
	case off >= 64:
		return fmt.Sprintf("%s.Hi>>%d&0x3ff", b, off-64), nil
	default:
		return fmt.Sprintf("(%s.Lo>>%d|%s.Hi<<%d)&0x3ff", b, off, b, 64-off), nil
	}
}

// progressionExpr writes g.read(x) with constants.
func progressionExpr(x string, g progression) string {
	return fmt.Sprintf("(%s>>%d&%#x)*%#x>>%d&%#x", x, g.shift, g.mask, g.mul, g.down, g.keep)
}

// diagonalExpr writes the bits of an evenly spaced instance of board b,
// in square order (reversed against the digits when d.rev).
func diagonalExpr(b string, d diagonal10) string {
	hi := progressionExpr(b+".Hi", d.hi)
	switch {
	case d.nLo == 0: // every square in Hi: no Lo term (it would read nothing)
		return hi
	case d.nLo < d.n:
		return fmt.Sprintf("%s | (%s)<<%d", progressionExpr(b+".Lo", d.lo), hi, d.nLo)
	}
	return progressionExpr(b+".Lo", d.lo)
}

// columnSquares10 returns the squares of column c, top to bottom.
func columnSquares10(c int) []uint8 {
	out := make([]uint8, 10)
	for r := range out {
		out[r] = uint8(10*r + c)
	}
	return out
}

func genFast10(l *Layout) ([]byte, error) {
	// One term per instance; the lines (rows, columns) it reads are
	// defined just before the first term that reads them, and the terms
	// are ordered by their lines, so that few lines are live at once (the
	// compiler keeps them in registers instead of spilling them). The sum
	// does not depend on the order.
	type term struct {
		code  string
		lines []int // 10·kind + line, ascending
	}
	var terms []term
	for _, in := range l.instances {
		off := l.offset[in.class]
		n := len(in.squares)
		var rev bool
		var pb, ob string
		used := map[int]bool{}
		segs := bestSegments10(in.squares)
		if d, ok := newDiagonal10(in.squares); ok && len(segs) > 1 {
			rev, pb, ob = d.rev, diagonalExpr("p", d), diagonalExpr("o", d)
		} else {
			rev, pb, ob = segs[0].view%2 == 1, runs("p", segs, n, used), runs("o", segs, n, used)
		}
		fn, shift := "tri10", ""
		if rev {
			fn = "tri10rev"
			if n < 10 {
				shift = fmt.Sprintf("<<%d", 10-n)
			}
		}
		code := fmt.Sprintf("\t// %s, symmetry %d: %v\n", l.classes[in.class].name, in.sym, in.squares)
		code += fmt.Sprintf("\ts += int(w[%d+int(%s[(%s)%s&0x3ff])+2*int(%s[(%s)%s&0x3ff])])\n", off, fn, pb, shift, fn, ob, shift)
		terms = append(terms, term{code, slices.Sorted(maps.Keys(used))})
	}
	// The diagonals (no lines) first, then by the lines read.
	slices.SortStableFunc(terms, func(a, b term) int { return slices.Compare(a.lines, b.lines) })

	var out bytes.Buffer
	fmt.Fprintf(&out, "// Code generated by TestFast10GeneratedIsCurrent with -update (fast10gen_test.go); DO NOT EDIT.\n\n")
	fmt.Fprintf(&out, "package eval\n\nimport \"flipbot.dev/flipbot/engines/othello\"\n\n")
	fmt.Fprintf(&out, "// patternWeights10 is the number of pattern weights in a phase of the 10×10 layout.\n")
	fmt.Fprintf(&out, "const patternWeights10 = %d\n\n", l.extra)
	fmt.Fprintf(&out, "// patterns10 returns the sum of the pattern weights w of one phase for p, o.\n")
	fmt.Fprintf(&out, "func patterns10(w *[patternWeights10]int16, p, o othello.Bits) int {\n\ts := 0\n")
	defined := map[int]bool{}
	for _, t := range terms {
		for _, x := range t.lines {
			if defined[x] {
				continue
			}
			defined[x] = true
			for _, b := range []string{"p", "o"} {
				e, err := lineExpr(b, x/10, x%10)
				if err != nil {
					return nil, err
				}
				fmt.Fprintf(&out, "\t%s := %s\n", lineVar(b, x/10, x%10), e)
			}
		}
		out.WriteString(t.code)
	}
	fmt.Fprintf(&out, "\treturn s\n}\n")
	return format.Source(out.Bytes())
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
		var r uint64
		for i := range d.n {
			r |= (x >> i & 1) << (d.n - 1 - i)
		}
		x = r
	}
	return x
}
