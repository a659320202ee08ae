package search

import (
	"math"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// The selective endgame: Multi-ProbCut inside the exact solver (M. Buro,
// "Experiments with Multi-ProbCut…", 1997, applied to the endgame as Edax
// 4.4 does in NWS_endgame/search_probcut, and as Egaroucid does), run as
// Edax's ramp of rising selectivity before the exact pass.
//
// At a null-window node of the solver with n ≥ endCutMin empties, a shallow
// midgame search of endCutShallow(n) plies predicts the exact final score:
// exact ≈ A·shallow + B discs, with residual σ, fitted per mode and empties
// on positions that `flipengine probcut -end` solves (engines/search/calib).
// When the shallow search says the exact score is ≥ β (or ≤ α) with
// confidence t·σ, the node returns β (α) without the exact search. The
// confidence t is the pass's level (endLevelT: Edax's selectivity levels
// 73 %, 87 %, 95 %, 98 %, 99 %).
//
// Every table entry that a selective pass stores is marked with its level
// (kindEndSel, entry.level): a pass at level L trusts the bounds of entries
// of level ≥ L and the exact ones, the exact pass trusts only exact entries
// (kindEnd), and every pass takes the best move of any entry. The last pass
// is always exact: selectivity only orders it and narrows its window.

// endLevelT is the confidence of each selectivity level, in residual
// standard deviations (Edax's selectivity table: 1.1σ ≈ 73 %, 1.5σ ≈ 87 %,
// 2.0σ ≈ 95 %, 2.6σ ≈ 98 %, 3.3σ ≈ 99 %). Level 0 is the exact pass.
var endLevelT = [...]float64{0, 1.1, 1.5, 2.0, 2.6, 3.3}

// endCutMin is the fewest empties at which the solver tries a cut.
const endCutMin = 12

// endRampMin is the fewest empties at which the root runs the selective
// passes before the exact one.
const endRampMin = 18

// endRamp is the sequence of selective levels the root runs before the
// exact pass (chosen by measurement, see engines/README.md).
var endRamp = [...]int{1, 2}

// endExactWindow is the half-width of the exact pass's window around the
// last selective score (re-searched on a fail).
const endExactWindow = 2

// endCutShallow is the depth of the shallow search that predicts the exact
// score at n empties: about a quarter of the empties, at least 2.
func endCutShallow(n int) int { return max(2, n/4) }

// EndCutFit predicts the exact score (discs) of a position of Mode with
// Empties empties from a midgame search of Shallow plies (evaluation units
// divided by eval.Disc): exact ≈ A·shallow + B, residual standard deviation
// Sigma discs, fitted on N positions.
type EndCutFit struct {
	Mode        othello.Mode
	Empties     int
	Shallow     int
	A, B, Sigma float64
	N           int
}

// endCutCell is a fit ready for the solver.
type endCutCell struct {
	shallow     int
	a, b, sigma float64
}

// endCutModel builds the solver's cells of mode from fits: cells[n] for
// every n from endCutMin, the fit of endCutShallow(n) at the nearest fitted
// empties. It returns nil when no fit applies.
func endCutModel(fits []EndCutFit, mode othello.Mode) []endCutCell {
	cells := make([]endCutCell, 65)
	found := false
	for n := endCutMin; n <= 64; n++ {
		s := endCutShallow(n)
		best, dist := -1, 1<<30
		for i, f := range fits {
			if f.Mode != mode || f.Shallow != s || f.A <= 0 || f.Sigma <= 0 {
				continue
			}
			if d := abs(f.Empties - n); d < dist {
				best, dist = i, d
			}
		}
		if best < 0 {
			continue
		}
		f := fits[best]
		cells[n] = endCutCell{shallow: s, a: f.A, b: f.B, sigma: f.Sigma}
		found = true
	}
	if !found {
		return nil
	}
	return cells
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// endCut8 tries a Multi-ProbCut at a null-window node of the solver with n
// empties at the thread's selectivity level: it reports a cut, with the
// value to return (β on a predicted fail high, α on a fail low).
func (t *thread) endCut8(p, o uint64, n, alpha, beta int, passed bool) (int, bool) {
	if t.mpc == nil || t.mpc.end == nil || n >= len(t.mpc.end) {
		return 0, false
	}
	c := t.mpc.end[n]
	if c.shallow == 0 {
		return 0, false
	}
	margin := endLevelT[t.level] * c.sigma
	// exact ≥ β when A·v + B − margin ≥ β, v = shallow/Disc.
	hi := int(math.Ceil((float64(beta) + margin - c.b) / c.a * eval.Disc))
	lo := int(math.Floor((float64(alpha) - margin - c.b) / c.a * eval.Disc))
	if hi < inf-1 {
		if v := t.mid8(p, o, capsFree, capsFree, c.shallow, hi-1, hi, passed); v >= hi || t.aborted {
			return beta, true
		}
	}
	if lo > -inf+1 {
		if v := t.mid8(p, o, capsFree, capsFree, c.shallow, lo, lo+1, passed); v <= lo || t.aborted {
			return alpha, true
		}
	}
	return 0, false
}
