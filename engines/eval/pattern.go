package eval

import (
	"fmt"
	"hash/crc32"
	"math"
	"math/bits"
	"slices"
	"strings"

	"flipbot.dev/flipbot/engines/othello"
)

// A patternClass is one shape of squares, given in its canonical
// orientation as (row, column) pairs; the layout evaluates every distinct
// image of it under the eight symmetries of the square.
type patternClass struct {
	name    string
	squares [][2]int
}

// instance is one image of a class on the board.
type instance struct {
	class   int
	sym     int     // the symmetry that maps the class onto it
	squares []uint8 // board squares, digit i of the index is squares[i]
}

// Layout is the feature layout of one board size: the pattern classes,
// their instances, the phases and the offsets of each class's weights in a
// phase. It is immutable once made and shared by evaluators and trainers.
type Layout struct {
	size      int
	phases    int
	playable  int // squares that can hold a disc
	classes   []patternClass
	instances []instance
	offset    []int     // first weight of each class in a phase
	canon     [][]int32 // per class: index → canonical index (symmetric twins share one weight)
	extra     int       // offset of the mode's extra feature table (reversi's cap)
	mob       int       // offset of the mobility tables, 0 when there are none
	perPhase  int       // weights per phase
	blocked   othello.Bits
	open      othello.Bits // playable squares (10×10)
	id        uint32       // checksum of the layout's description, stored in weights files
}

// capRange bounds reversi's cap feature: min(pLeft, empties) − min(oLeft,
// empties), clamped to ±capRange.
const capRange = 8

// The mobility features (every 10×10 layout, the 8×8 layout of generation
// 2 on), one table each, indexed by
// a count clamped to the table's last entry: the legal moves of the side to
// move and of its opponent (mobRange entries each), and their potential
// mobility, the empty squares next to the other side's discs (potRange
// entries each). Egaroucid's evaluation adds the same counts to its
// patterns; here they carry the midgame judgement that 10×10 self-play data
// is too thin to teach the large patterns. On 8×8 the clamps never bind for
// the potential mobility (at most 31 of it is possible only in contrived
// positions) and rarely for the moves (over 23 legal moves is rare).
const (
	mobRange = 24
	potRange = 32
)

// pow3 is 3ⁱ.
var pow3 = [...]int{1, 3, 9, 27, 81, 243, 729, 2187, 6561, 19683, 59049, 177147, 531441}

func lineSquares(r0, c0, dr, dc, n int) [][2]int {
	out := make([][2]int, n)
	for i := range out {
		out[i] = [2]int{r0 + i*dr, c0 + i*dc}
	}
	return out
}

func block(rows, cols int) [][2]int {
	var out [][2]int
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			out = append(out, [2]int{r, c})
		}
	}
	return out
}

// classes8 is the 8×8 pattern set: Logistello's / Edax's shapes.
func classes8() []patternClass {
	edge := append(lineSquares(0, 0, 0, 1, 8), [2]int{1, 1}, [2]int{1, 6})
	cs := []patternClass{
		{"edge+2x", edge},
		{"corner3x3", block(3, 3)},
		{"corner2x5", block(2, 5)},
		{"row2", lineSquares(1, 0, 0, 1, 8)},
		{"row3", lineSquares(2, 0, 0, 1, 8)},
		{"row4", lineSquares(3, 0, 0, 1, 8)},
		{"diag8", lineSquares(0, 0, 1, 1, 8)},
	}
	for n := 7; n >= 4; n-- {
		cs = append(cs, patternClass{fmt.Sprintf("diag%d", n), lineSquares(0, 8-n, 1, 1, n)})
	}
	return cs
}

// classes10 is the 10×10 pattern set: the same shapes on the larger board,
// at most 10 squares each (the edge without its X-squares, rows 2–5).
func classes10() []patternClass {
	cs := []patternClass{
		{"edge10", lineSquares(0, 0, 0, 1, 10)},
		{"corner3x3", block(3, 3)},
		{"corner2x5", block(2, 5)},
		{"row2", lineSquares(1, 0, 0, 1, 10)},
		{"row3", lineSquares(2, 0, 0, 1, 10)},
		{"row4", lineSquares(3, 0, 0, 1, 10)},
		{"row5", lineSquares(4, 0, 0, 1, 10)},
		{"diag10", lineSquares(0, 0, 1, 1, 10)},
	}
	for n := 9; n >= 4; n-- {
		cs = append(cs, patternClass{fmt.Sprintf("diag%d", n), lineSquares(0, 10-n, 1, 1, n)})
	}
	return cs
}

// symmetry maps (r, c) by the k-th symmetry of an n×n square.
func symmetry(k, n, r, c int) (int, int) {
	m := n - 1
	switch k {
	case 1:
		return c, r
	case 2:
		return m - r, c
	case 3:
		return r, m - c
	case 4:
		return m - r, m - c
	case 5:
		return m - c, m - r
	case 6:
		return c, m - r
	case 7:
		return m - c, r
	}
	return r, c
}

// PhasesOf is the number of game phases with their own weights in a mode:
// 12 for std, which trains on 7 M WTHOR positions, 6 for the modes that
// train on self-play alone (fewer positions per weight).
func PhasesOf(mode othello.Mode) int {
	if mode == othello.Std {
		return 12
	}
	return 6
}

// LayoutFor returns the feature layout new fits of mode use: the 8×8
// patterns for std, anti and reversi, the 10×10 ones (with the mode's
// blocked squares) for grand and octagon, each with the four mobility
// features. Weights files may also be of an older layout of the mode (see
// [Layouts]).
func LayoutFor(mode othello.Mode) *Layout {
	return Layouts(mode)[0]
}

// Layouts returns every layout a weights file of mode may have, the one new
// fits use ([LayoutFor]) first. The 8×8 modes have two: with the mobility
// features (generation 2 on) and without them (generation 1, whose files
// and layout ID are unchanged); the 10×10 modes have had the mobility
// features from their first embedded weights on and have only that one.
func Layouts(mode othello.Mode) []*Layout {
	if mode.Size() == 10 {
		return []*Layout{newLayout(10, PhasesOf(mode), classes10(), mode.Blocked(), true)}
	}
	return []*Layout{
		newLayout(8, PhasesOf(mode), classes8(), othello.Bits{}, true),
		newLayout(8, PhasesOf(mode), classes8(), othello.Bits{}, false),
	}
}

// LayoutByID returns the layout of mode whose ID is id, or nil when this
// build knows no such layout of the mode.
func LayoutByID(mode othello.Mode, id uint32) *Layout {
	for _, l := range Layouts(mode) {
		if l.id == id {
			return l
		}
	}
	return nil
}

func newLayout(size, phases int, classes []patternClass, blocked othello.Bits, mobility bool) *Layout {
	l := &Layout{size: size, phases: phases, classes: classes, blocked: blocked}
	if size == 10 {
		l.open = board10.AndNot(blocked)
	}
	l.playable = size*size - blocked.Count()
	var desc strings.Builder
	fmt.Fprintf(&desc, "size %d phases %d cap %d\n", size, phases, capRange)
	for ci, pc := range classes {
		l.offset = append(l.offset, l.perPhase)
		l.perPhase += pow3[len(pc.squares)]
		fmt.Fprintf(&desc, "%s %v\n", pc.name, pc.squares)
		seen := map[uint64][]uint8{}
		var canonPerms [][]int
		for k := 0; k < 8; k++ {
			sqs := make([]uint8, len(pc.squares))
			for i, rc := range pc.squares {
				r, c := symmetry(k, size, rc[0], rc[1])
				sqs[i] = uint8(r*size + c)
			}
			key := squareSetKey(sqs)
			if first, ok := seen[key]; ok {
				// The same squares in another order: a symmetry of the
				// class; its index permutation joins the canonical map.
				canonPerms = addPerm(canonPerms, permutation(first, sqs))
				continue
			}
			seen[key] = sqs
			l.instances = append(l.instances, instance{class: ci, sym: k, squares: sqs})
		}
		l.canon = append(l.canon, canonical(len(pc.squares), canonPerms))
	}
	l.extra = l.perPhase
	l.perPhase += 2*capRange + 1
	if mobility {
		fmt.Fprintf(&desc, "mobility %d potential %d\n", mobRange, potRange)
		l.mob = l.perPhase
		l.perPhase += 2*mobRange + 2*potRange
	}
	l.id = crc32.ChecksumIEEE([]byte(desc.String()))
	return l
}

// squareSetKey identifies a set of squares regardless of order (at most
// 100 squares: two words folded into one key by a multiplier).
func squareSetKey(sqs []uint8) uint64 {
	var lo, hi uint64
	for _, s := range sqs {
		if s < 64 {
			lo |= 1 << s
		} else {
			hi |= 1 << (s - 64)
		}
	}
	return lo ^ bits.RotateLeft64(hi*0x9E3779B97F4A7C15, 17)
}

// permutation returns perm with b[i] == a[perm[i]].
func permutation(a, b []uint8) []int {
	perm := make([]int, len(b))
	for i, s := range b {
		for j, t := range a {
			if s == t {
				perm[i] = j
			}
		}
	}
	return perm
}

// addPerm adds perm to perms unless it is there already.
func addPerm(perms [][]int, perm []int) [][]int {
	for _, q := range perms {
		if slices.Equal(q, perm) {
			return perms
		}
	}
	return append(perms, perm)
}

// canonical maps every index of an n-square pattern to the smallest index
// among its images under the given digit permutations.
func canonical(n int, perms [][]int) []int32 {
	out := make([]int32, pow3[n])
	digits := make([]int, n)
	for idx := range out {
		best := idx
		for _, perm := range perms {
			x := idx
			for i := 0; i < n; i++ {
				digits[i] = x % 3
				x /= 3
			}
			// Digit i of the image is the digit perm[i] of idx.
			v := 0
			for i := n - 1; i >= 0; i-- {
				v = v*3 + digits[perm[i]]
			}
			best = min(best, v)
		}
		out[idx] = int32(best)
	}
	return out
}

// Size is the side of the layout's board.
func (l *Layout) Size() int { return l.size }

// NumPhases is the number of game phases with their own weights.
func (l *Layout) NumPhases() int { return l.phases }

// PerPhase is the number of weights of one phase.
func (l *Layout) PerPhase() int { return l.perPhase }

// NumFeatures is the number of features of a position: one per pattern
// instance, the cap feature and the four mobility features if the layout
// has them.
func (l *Layout) NumFeatures() int {
	if l.mob > 0 {
		return len(l.instances) + 5
	}
	return len(l.instances) + 1
}

// ID is the checksum of the layout's description, which a weights file
// must match.
func (l *Layout) ID() uint32 { return l.id }

// Mobility reports whether the layout has the four mobility features.
func (l *Layout) Mobility() bool { return l.mob > 0 }

// Phase returns the phase of a position with the given number of empty
// playable squares.
func (l *Layout) Phase(empties int) int {
	filled := l.playable - empties
	ph := filled * l.phases / (l.playable + 1)
	return max(0, min(l.phases-1, ph))
}

// capFeature is reversi's cap term as an index into the extra table.
func capFeature(empties, pLeft, oLeft int) int {
	d := min(pLeft, empties) - min(oLeft, empties)
	return max(-capRange, min(capRange, d)) + capRange
}

// Features writes the weight indices (within a phase) of the position's
// features to buf, which must hold NumFeatures entries, and returns the
// phase. When canon is set, symmetric twins map to one index (for
// training); otherwise each index is the raw one (the weights tables hold
// the same value at every twin).
func (l *Layout) Features(p, o othello.Bits, pLeft, oLeft int, canon bool, buf []int32) int {
	for i := range l.instances {
		in := &l.instances[i]
		var idx int
		if l.size == 8 {
			idx = instanceIndex8(in.squares, p.Lo, o.Lo)
		} else {
			idx = instanceIndex(in.squares, p, o)
		}
		if canon {
			idx = int(l.canon[in.class][idx])
		}
		buf[i] = int32(l.offset[in.class] + idx)
	}
	empties := l.playable - p.Or(o).Count()
	buf[len(l.instances)] = int32(l.extra + capFeature(empties, pLeft, oLeft))
	if l.mob > 0 {
		for i, x := range l.mobility(p, o) {
			buf[len(l.instances)+1+i] = int32(x)
		}
	}
	return l.Phase(empties)
}

// mobility returns the indices, within a phase, of the four mobility
// features of a position with p to move (the layout must have them).
func (l *Layout) mobility(p, o othello.Bits) [4]int {
	var mp, mo, pp, po int
	if l.size == 8 {
		empty := ^(p.Lo | o.Lo)
		mp = bits.OnesCount64(othello.Legal8(p.Lo, o.Lo))
		mo = bits.OnesCount64(othello.Legal8(o.Lo, p.Lo))
		pp = bits.OnesCount64(neighbours8(o.Lo) & empty)
		po = bits.OnesCount64(neighbours8(p.Lo) & empty)
	} else {
		empty := l.open.AndNot(p.Or(o))
		mp = othello.Legal10(p, o, l.blocked).Count()
		mo = othello.Legal10(o, p, l.blocked).Count()
		pp = neighbours10(o).And(empty).Count()
		po = neighbours10(p).And(empty).Count()
	}
	return [4]int{
		l.mob + min(mp, mobRange-1),
		l.mob + mobRange + min(mo, mobRange-1),
		l.mob + 2*mobRange + min(pp, potRange-1),
		l.mob + 2*mobRange + potRange + min(po, potRange-1),
	}
}

// instanceIndex is the ternary index of the squares: digit i is 0 for an
// empty (or blocked) square, 1 for the player's disc, 2 for the opponent's.
func instanceIndex(sqs []uint8, p, o othello.Bits) int {
	var pb, ob uint
	for i, s := range sqs {
		pb |= uint(bitAt(p, s)) << i
		ob |= uint(bitAt(o, s)) << i
	}
	return int(ternary[pb]) + 2*int(ternary[ob])
}

// instanceIndex8 is instanceIndex on an 8×8 board.
func instanceIndex8(sqs []uint8, p, o uint64) int {
	var pb, ob uint64
	for i, q := range sqs {
		pb |= (p >> q & 1) << i
		ob |= (o >> q & 1) << i
	}
	return int(ternary[pb]) + 2*int(ternary[ob])
}

func bitAt(b othello.Bits, s uint8) uint64 {
	if s < 64 {
		return b.Lo >> s & 1
	}
	return b.Hi >> (s - 64) & 1
}

// ternary[x] reads the bits of x as ternary digits.
var ternary = func() (t [1 << 12]uint32) {
	for x := range t {
		v := 0
		for i := 0; i < 12; i++ {
			if x>>i&1 == 1 {
				v += pow3[i]
			}
		}
		t[x] = uint32(v)
	}
	return t
}()

// Quantize turns fitted weights in discs, indexed by canonical index (as
// Features with canon set returns them), into the int16 tables of a
// weights file: every raw index gets its canonical twin's value, rounded to
// evaluation units and clamped to the int16 range.
func (l *Layout) Quantize(mode othello.Mode, w []float32) (*Weights, error) {
	if len(w) != l.phases*l.perPhase {
		return nil, fmt.Errorf("quantize: %d weights, the layout has %d", len(w), l.phases*l.perPhase)
	}
	out := &Weights{Mode: mode, LayoutID: l.id, W: make([]int16, len(w))}
	q := func(v float32) int16 {
		x := math.Round(float64(v) * Disc)
		return int16(max(math.MinInt16, min(math.MaxInt16, x)))
	}
	for ph := 0; ph < l.phases; ph++ {
		base := ph * l.perPhase
		for ci := range l.classes {
			off := base + l.offset[ci]
			for idx, c := range l.canon[ci] {
				out.W[off+idx] = q(w[off+int(c)])
			}
		}
		for i := l.extra; i < l.perPhase; i++ {
			out.W[base+i] = q(w[base+i])
		}
	}
	return out, nil
}

// Dequantize returns weights w, of this layout or another layout of the
// same mode with the same patterns and phases, in discs as a fit of this
// layout holds them: the pattern and cap tables are copied, and the
// mobility tables too when both layouts have them; tables that w's layout
// lacks start at 0. A fit starts from them to refine a generation (the
// 8×8 layout with the mobility features from generation 1's weights).
func (l *Layout) Dequantize(w *Weights) ([]float32, error) {
	src, err := w.Layout()
	if err != nil {
		return nil, err
	}
	if src.size != l.size || src.phases != l.phases || src.extra != l.extra || !slices.Equal(src.offset, l.offset) {
		return nil, fmt.Errorf("dequantize: layout %08x has other patterns or phases than %08x", src.id, l.id)
	}
	out := make([]float32, l.phases*l.perPhase)
	shared := l.extra + 2*capRange + 1
	for ph := 0; ph < l.phases; ph++ {
		from, to := w.W[ph*src.perPhase:], out[ph*l.perPhase:]
		for i := 0; i < shared; i++ {
			to[i] = float32(from[i]) / Disc
		}
		if l.mob > 0 && src.mob > 0 {
			for i := 0; i < 2*mobRange+2*potRange; i++ {
				to[l.mob+i] = float32(from[src.mob+i]) / Disc
			}
		}
	}
	return out, nil
}
