package search

import (
	"context"
	"fmt"
	"go/token"
	"io"
	"math"
	"time"

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
// on positions that `flipengine probcut -end` solves (CalibrateEndCut).
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

// EndCutConfig says what CalibrateEndCut measures. The zero value gives the
// defaults.
type EndCutConfig struct {
	// Modes to fit (default: std and anti; reversi's caps and 10×10 have
	// no selective endgame).
	Modes []othello.Mode
	// MinEmpties and MaxEmpties bound the empties fitted (default
	// endCutMin and 22); the solver uses the nearest fit beyond.
	MinEmpties, MaxEmpties int
	// Positions per mode and empties (default 32).
	Positions int
	// MaxShallow is the deepest shallow search fitted (default 8).
	MaxShallow int
	// Seed varies the positions.
	Seed uint64
	// Progress, when set, receives one line per fit.
	Progress func(string)
}

// CalibrateEndCut fits the endgame Multi-ProbCut for the evaluations and
// midgame Multi-ProbCut of opts: for each mode and number of empties it
// plays positions by the noisy policy of CalibrateProbCut, solves each
// exactly, searches it with a full window at depths 1 to MaxShallow, and
// fits exact ≈ A·shallow + B by least squares for every shallow depth.
func CalibrateEndCut(ctx context.Context, opts Options, cfg EndCutConfig) ([]EndCutFit, error) {
	if len(cfg.Modes) == 0 {
		cfg.Modes = []othello.Mode{othello.Std, othello.Anti}
	}
	if cfg.MinEmpties <= 0 {
		cfg.MinEmpties = endCutMin
	}
	if cfg.MaxEmpties <= 0 {
		cfg.MaxEmpties = 22
	}
	if cfg.Positions <= 0 {
		cfg.Positions = 32
	}
	if cfg.MaxShallow <= 0 {
		cfg.MaxShallow = 8
	}
	opts.Threads = 1
	if opts.HashMB <= 0 {
		opts.HashMB = 64
	}
	e := New(opts)
	var out []EndCutFit
	rng := cfg.Seed*0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D
	for _, mode := range cfg.Modes {
		if mode.Size() != 8 || mode == othello.Reversi {
			return nil, fmt.Errorf("calibrate endcut: mode %v has no selective endgame", mode)
		}
		for n := cfg.MinEmpties; n <= cfg.MaxEmpties; n++ {
			start := time.Now()
			// values[i] is position i's shallow values at depths 1 to
			// MaxShallow, then its exact score, all in evaluation units.
			var values [][]int
			for len(values) < cfg.Positions {
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("calibrate endcut: %w", err)
				}
				pos, ok := e.noisyGame(mode, n, &rng)
				if !ok || pos.Empties().Count() != n {
					continue
				}
				v, ok := e.endValues(ctx, pos, cfg.MaxShallow)
				if !ok {
					return nil, fmt.Errorf("calibrate endcut: %w", ctx.Err())
				}
				values = append(values, v)
			}
			for s := 1; s <= cfg.MaxShallow; s++ {
				f, ok := fitLine(values, s, cfg.MaxShallow+1)
				if !ok {
					continue
				}
				fit := EndCutFit{Mode: mode, Empties: n, Shallow: s, A: f.A, B: f.B / eval.Disc, Sigma: f.Sigma / eval.Disc, N: f.N}
				out = append(out, fit)
				if cfg.Progress != nil {
					cfg.Progress(fmt.Sprintf("%-5s empties %2d shallow %d: A %.3f B %+6.2f sigma %5.2f discs (%d positions, %v)",
						mode, n, s, fit.A, fit.B, fit.Sigma, fit.N, time.Since(start).Round(time.Millisecond)))
				}
			}
		}
	}
	return out, nil
}

// endValues returns pos's full-window midgame values at depths 1 to
// maxShallow and, last, its exact score times eval.Disc, searched on one
// thread after clearing the table (ok false when ctx ended first).
func (e *Engine) endValues(ctx context.Context, pos othello.Position, maxShallow int) ([]int, bool) {
	j := &job{start: time.Now(), soft: 1 << 62}
	stopWatch := context.AfterFunc(ctx, func() { j.stop.Store(true) })
	defer stopWatch()
	t := &thread{tt: e.tt, ev8: e.ev8[pos.Mode], salt: modeSalt(pos.Mode, false), mpc: e.mpc[pos.Mode],
		anti: pos.Mode == othello.Anti, job: j}
	p, o := pos.Discs(pos.Turn).Lo, pos.Discs(pos.Turn.Opponent()).Lo
	v := make([]int, maxShallow+2)
	e.tt.clear()
	for d := 1; d <= maxShallow; d++ {
		v[d] = t.mid8(p, o, capsFree, capsFree, d, -inf, inf, false)
	}
	e.tt.clear()
	v[maxShallow+1] = t.solve8(p, o, -65, 65, false) * eval.Disc
	return v, !t.aborted
}

// WriteEndGo writes fits as a Go source file of package search defining the
// function fn (patternEndCut: the endgame fits the engine uses with the
// pattern evaluation). note is copied into the file's comment.
func WriteEndGo(w io.Writer, fits []EndCutFit, fn, note string) error {
	if !token.IsIdentifier(fn) {
		return fmt.Errorf("write endcut table: %q is not a Go identifier", fn)
	}
	if _, err := fmt.Fprintf(w, "// Code generated by flipengine probcut -end; DO NOT EDIT.\n// %s\n\npackage search\n\nimport \"flipbot.dev/flipbot/engines/othello\"\n\n"+
		"// %s returns the endgame Multi-ProbCut fits made by flipengine probcut -end.\nfunc %s() []EndCutFit {\n\treturn []EndCutFit{\n", note, fn, fn); err != nil {
		return fmt.Errorf("write endcut table: %w", err)
	}
	names := map[othello.Mode]string{othello.Std: "Std", othello.Anti: "Anti", othello.Grand: "Grand", othello.Octagon: "Octagon", othello.Reversi: "Reversi"}
	for _, f := range fits {
		if _, err := fmt.Fprintf(w, "\t\t{Mode: othello.%s, Empties: %d, Shallow: %d, A: %.4f, B: %.2f, Sigma: %.2f, N: %d},\n",
			names[f.Mode], f.Empties, f.Shallow, f.A, f.B, f.Sigma, f.N); err != nil {
			return fmt.Errorf("write endcut table: %w", err)
		}
	}
	if _, err := fmt.Fprint(w, "\t}\n}\n"); err != nil {
		return fmt.Errorf("write endcut table: %w", err)
	}
	return nil
}
