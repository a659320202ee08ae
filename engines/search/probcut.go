package search

import (
	"math"

	"flipbot.dev/flipbot/engines/othello"
)

// Multi-ProbCut: M. Buro, "Experiments with Multi-ProbCut and a new
// high-quality evaluation function for Othello", NEC Research Institute
// technical report 96, 1997 (in Games in AI Research, 2000), after ProbCut
// (M. Buro, "ProbCut: an effective selective extension of the alpha-beta
// algorithm", ICCA Journal 18(2), 1995). At a null-window midgame node of depth d, a search
// of shallow depth s predicts the deep value as v_d ≈ A·v_s + B with a
// residual error σ, fitted per mode, phase and depth on positions that
// `flipengine probcut` searches (engines/search/calib). When the shallow search
// shows that v_d ≥ β (or ≤ α) with confidence probCutT·σ, the node is cut
// without the deep search.

// probCutT is the confidence of a cut in residual standard deviations
// (1.5σ: a wrong cut in about 7 % of the tries of one side).
const probCutT = 1.5

// probCutMinDepth is the shallowest search to which Multi-ProbCut applies.
const probCutMinDepth = 3

// ProbCut is a set of fitted Multi-ProbCut parameters, one fit per mode,
// phase (a range of empties) and depth. The zero value has no fit and turns
// Multi-ProbCut off.
type ProbCut struct {
	Fits []ProbCutFit
	// End holds the fits of the selective endgame (endcut.go); none turns
	// it off.
	End []EndCutFit
}

// ProbCutFit predicts a search of Depth plies from one of Shallow plies in
// positions of Mode with MinEmpties to MaxEmpties empties: deep ≈
// A·shallow + B (evaluation units), with residual standard deviation Sigma,
// fitted on N positions.
type ProbCutFit struct {
	Mode                   othello.Mode
	MinEmpties, MaxEmpties int
	Depth, Shallow         int
	A, B, Sigma            float64
	N                      int
}

// probCutShallow is the shallow depth paired with depth d: about half, of
// the same parity (Othello evaluations swing between odd and even depths).
func probCutShallow(d int) int {
	s := d / 2
	if (d-s)%2 != 0 {
		s--
	}
	return max(s, 1)
}

// probCutCell is a fit ready for the search: the cut bounds are
// (β + T·σ − B)/A and (α − T·σ − B)/A.
type probCutCell struct {
	shallow      int
	a, b, margin float64
}

// probCutModel is the lookup of one mode: cells[empties][depth], depths past
// the deepest fit using the deepest fit of the phase.
type probCutModel struct {
	cells [][]probCutCell // nil cell rows: no fit
	// end is the selective endgame's lookup by empties (nil: none).
	end []endCutCell
}

// probCutMaxDepth bounds the depths looked up.
const probCutMaxDepth = 64

// model builds the lookup of mode, nil when pc has no fit for it.
func (x *ProbCut) model(mode othello.Mode) *probCutModel {
	if x == nil {
		return nil
	}
	m := &probCutModel{cells: make([][]probCutCell, 101)}
	found := false
	for n := range m.cells {
		row := make([]probCutCell, probCutMaxDepth+1)
		deepest := -1
		for _, f := range x.Fits {
			if f.Mode != mode || n < f.MinEmpties || n > f.MaxEmpties || f.Depth < probCutMinDepth ||
				f.Depth > probCutMaxDepth || f.A <= 0 || f.Sigma <= 0 || f.Shallow <= 0 || f.Shallow >= f.Depth {
				continue
			}
			row[f.Depth] = probCutCell{shallow: f.Shallow, a: f.A, b: f.B, margin: probCutT * f.Sigma}
			if f.Depth > deepest {
				deepest = f.Depth
			}
		}
		if deepest < 0 {
			continue
		}
		found = true
		for d := deepest + 1; d <= probCutMaxDepth; d++ {
			c := row[deepest]
			c.shallow = probCutShallow(d)
			row[d] = c
		}
		m.cells[n] = row
	}
	m.end = endCutModel(x.End, mode)
	if !found && m.end == nil {
		return nil
	}
	return m
}

// cell returns the fit for n empties at depth, ok false when there is none.
func (m *probCutModel) cell(n, depth int) (probCutCell, bool) {
	if m == nil || n < 0 || n >= len(m.cells) || m.cells[n] == nil || depth > probCutMaxDepth {
		return probCutCell{}, false
	}
	c := m.cells[n][depth]
	return c, c.shallow > 0
}

// bounds returns the shallow-search bounds that predict a deep value ≥ beta
// and ≤ alpha.
func (c probCutCell) bounds(alpha, beta int) (lo, hi int) {
	hi = int(math.Ceil((float64(beta) + c.margin - c.b) / c.a))
	lo = int(math.Floor((float64(alpha) - c.margin - c.b) / c.a))
	return max(lo, -inf+1), min(hi, inf-1)
}
