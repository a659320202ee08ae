package eval

import (
	"fmt"
	"math/bits"

	"flipbot.dev/flipbot/engines/othello"
)

// Pattern is a trained pattern evaluation of one mode: the sum of one
// weight per pattern instance (and, in reversi, the cap term) of the
// position's phase, and the four mobility features if its layout has them.
// It implements [Evaluator8] or [Evaluator10] by the
// mode's size and is safe for concurrent use.
type Pattern struct {
	mode   othello.Mode
	layout *Layout
	w      []int16
	sq8    [][]uint8 // instance squares (10×10)
	class  []int     // per instance: offset of its class in a phase (10×10)
	fast   *fast8
	limit  int // scores stay inside ±limit
	// phase10[n] is the first weight of the phase of a 10×10 position
	// with n empty playable squares.
	phase10 []int
}

var (
	_ Evaluator8  = (*Pattern)(nil)
	_ Evaluator10 = (*Pattern)(nil)
)

// NewPattern returns the evaluation given by w.
func NewPattern(w *Weights) (*Pattern, error) {
	l, err := w.Layout()
	if err != nil {
		return nil, err
	}
	if len(w.W) != l.phases*l.perPhase {
		return nil, fmt.Errorf("pattern evaluation of %s: %d weights, the layout has %d", w.Mode, len(w.W), l.phases*l.perPhase)
	}
	e := &Pattern{mode: w.Mode, layout: l, w: w.W, limit: (l.playable - 1) * Disc}
	if l.size == 8 {
		e.fast = newFast8(l)
	} else {
		if l.extra != patternWeights10 {
			return nil, fmt.Errorf("pattern evaluation of %s: the layout has %d pattern weights a phase, fast10_gen.go was generated for %d", w.Mode, l.extra, patternWeights10)
		}
		for n := 0; n <= l.playable; n++ {
			e.phase10 = append(e.phase10, l.Phase(n)*l.perPhase)
		}
	}
	for _, in := range l.instances {
		e.sq8 = append(e.sq8, in.squares)
		e.class = append(e.class, l.offset[in.class])
	}
	return e, nil
}

// Mode is the mode the weights were trained for.
func (e *Pattern) Mode() othello.Mode { return e.mode }

// Score8 implements [Evaluator8].
func (e *Pattern) Score8(p, o uint64, pLeft, oLeft int) int {
	l := e.layout
	empties := 64 - bits.OnesCount64(p|o)
	w := e.w[l.Phase(empties)*l.perPhase:]
	s := int(w[l.extra+capFeature(empties, pLeft, oLeft)])
	s += e.fast.score(w, p, o)
	if l.mob > 0 {
		s += mobility8(w[l.mob:], p, o)
	}
	return max(-e.limit, min(e.limit, s))
}

// Score10 implements [Evaluator10].
func (e *Pattern) Score10(p, o othello.Bits) int {
	l := e.layout
	empty := l.open.AndNot(p.Or(o))
	w := e.w[e.phase10[empty.Count()]:]
	s := int(w[l.extra+capRange])
	for _, x := range l.mobility10(p, o, empty) {
		s += int(w[x])
	}
	s += patterns10((*[patternWeights10]int16)(w), p, o)
	return max(-e.limit, min(e.limit, s))
}
