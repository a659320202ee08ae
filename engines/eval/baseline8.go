package eval

import (
	"math/bits"

	"flipbot.dev/flipbot/engines/othello"
)

// Weights of the baseline evaluation, in evaluation units per feature count.
type weights struct {
	mobility, potential, corner, xSquare, cSquare, stable, parity, discs int
}

// baselineWeights returns the hand-made weights of a mode: anti keeps the
// mobility terms (having moves is as good as ever) and inverts the ones that
// count owned, lasting discs.
func baselineWeights(mode othello.Mode) weights {
	w := weights{mobility: 45, potential: 12, corner: 320, xSquare: -170, cSquare: -45, stable: 55, parity: 60, discs: 0}
	if mode == othello.Anti {
		w.corner, w.xSquare, w.cSquare, w.stable, w.discs = -260, 110, 30, -55, -8
	}
	return w
}

// Baseline8 returns the hand-made evaluation of an 8×8 mode: mobility,
// potential mobility, corners, X- and C-squares next to empty corners,
// stable discs once a corner is taken, parity, and for anti a disc-count
// term; reversi adds the discs each colour may still place.
func Baseline8(mode othello.Mode) Evaluator8 {
	return &baseline8{w: baselineWeights(mode), reversi: mode == othello.Reversi}
}

type baseline8 struct {
	w       weights
	reversi bool
}

const (
	corners8 = 1 | 1<<7 | 1<<56 | 1<<63
	notA8    = 0xFEFEFEFEFEFEFEFE
	notH8    = 0x7F7F7F7F7F7F7F7F
)

// xSquares8 and cSquares8 pair each corner with its diagonal neighbour and
// its two edge neighbours.
var (
	xSquares8 = [4]uint64{1 << 9, 1 << 14, 1 << 49, 1 << 54}
	cSquares8 = [4]uint64{1<<1 | 1<<8, 1<<6 | 1<<15, 1<<48 | 1<<57, 1<<55 | 1<<62}
	cornerSq8 = [4]uint64{1, 1 << 7, 1 << 56, 1 << 63}
)

func neighbours8(x uint64) uint64 {
	l := (x >> 1) & notH8
	r := (x << 1) & notA8
	h := x | l | r
	return (h | h<<8 | h>>8) &^ x
}

// Score8 implements [Evaluator8].
func (b *baseline8) Score8(p, o uint64, pLeft, oLeft int) int {
	w := &b.w
	empty := ^(p | o)
	mp := bits.OnesCount64(othello.Legal8(p, o))
	mo := bits.OnesCount64(othello.Legal8(o, p))
	if pLeft <= 0 {
		mp = 0
	}
	if oLeft <= 0 {
		mo = 0
	}
	s := w.mobility * (mp - mo)
	s += w.potential * (bits.OnesCount64(neighbours8(o)&empty) - bits.OnesCount64(neighbours8(p)&empty))
	s += w.corner * (bits.OnesCount64(p&corners8) - bits.OnesCount64(o&corners8))
	for i, c := range cornerSq8 {
		if empty&c != 0 {
			s += w.xSquare * (bits.OnesCount64(p&xSquares8[i]) - bits.OnesCount64(o&xSquares8[i]))
			s += w.cSquare * (bits.OnesCount64(p&cSquares8[i]) - bits.OnesCount64(o&cSquares8[i]))
		}
	}
	if (p|o)&corners8 != 0 {
		s += w.stable * (bits.OnesCount64(Stable8(p, o)) - bits.OnesCount64(Stable8(o, p)))
	}
	n := bits.OnesCount64(empty)
	if n < 20 {
		if n&1 == 1 {
			s += w.parity
		} else {
			s -= w.parity
		}
	}
	if w.discs != 0 {
		s += w.discs * (64 - n) / 16 * (bits.OnesCount64(p) - bits.OnesCount64(o))
	}
	if b.reversi && (pLeft < n || oLeft < n) {
		// Under the cap, the colour that runs out of discs first must
		// watch the other fill the board.
		s += 40 * (min(pLeft, n) - min(oLeft, n))
	}
	return s
}
