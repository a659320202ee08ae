package search

import (
	"context"
	"fmt"
	"math"
	"time"

	"flipbot.dev/flipbot/engines/othello"
)

// CalibrateConfig says what CalibrateProbCut measures. The zero value gives
// the defaults.
type CalibrateConfig struct {
	// Modes to fit (default: all five).
	Modes []othello.Mode
	// Positions per mode and phase (default 24).
	Positions int
	// MaxDepth8 and MaxDepth10 are the deepest searches fitted on 8×8 and
	// 10×10 (default 8 and 6); deeper searches use the deepest fit.
	MaxDepth8, MaxDepth10 int
	// Seed varies the positions (the same seed gives the same positions).
	Seed uint64
	// Progress, when set, receives one line per phase fitted.
	Progress func(string)
}

// probCutPhases returns the ranges of empties fitted for a mode: from just
// above the exact solver's reach to the start, 8 empties wide on 8×8 and 12
// on 10×10.
func probCutPhases(mode othello.Mode) [][2]int {
	total := mode.Squares() - mode.Blocked().Count() - 4
	lo, width := midSolve+1, 8
	if mode.Size() == 10 {
		lo, width = midSolve10+1, 12
	}
	var out [][2]int
	for ; lo <= total; lo += width {
		out = append(out, [2]int{lo, min(lo+width-1, total)})
	}
	return out
}

// CalibrateProbCut fits Multi-ProbCut parameters for the evaluations of opts
// (its ProbCut is ignored: the searches measured run without it). For each
// mode and phase it plays positions by a noisy one-ply policy from the
// start, searches each with a full window at depths 1 to the maximum, and
// fits deep ≈ A·shallow + B by least squares for every depth from 3 with
// its shallow depth (probCutShallow).
func CalibrateProbCut(ctx context.Context, opts Options, cfg CalibrateConfig) (*ProbCut, error) {
	if len(cfg.Modes) == 0 {
		cfg.Modes = othello.AllModes()
	}
	if cfg.Positions <= 0 {
		cfg.Positions = 24
	}
	if cfg.MaxDepth8 <= 0 {
		cfg.MaxDepth8 = 8
	}
	if cfg.MaxDepth10 <= 0 {
		cfg.MaxDepth10 = 6
	}
	opts.ProbCut = &ProbCut{}
	opts.Threads = 1
	if opts.HashMB <= 0 {
		opts.HashMB = 16
	}
	e := New(opts)
	out := &ProbCut{}
	rng := cfg.Seed*0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D
	for _, mode := range cfg.Modes {
		maxDepth := cfg.MaxDepth8
		if mode.Size() == 10 {
			maxDepth = cfg.MaxDepth10
		}
		for _, ph := range probCutPhases(mode) {
			start := time.Now()
			// values[i][d] is position i's value at depth d.
			var values [][]int
			for len(values) < cfg.Positions {
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("calibrate probcut: %w", err)
				}
				target := ph[0] + int(nextRand(&rng)%uint64(ph[1]-ph[0]+1))
				pos, ok := e.noisyGame(mode, target, &rng)
				if !ok {
					continue
				}
				values = append(values, e.depthValues(ctx, pos, maxDepth))
			}
			for d := probCutMinDepth; d <= maxDepth; d++ {
				s := probCutShallow(d)
				f, ok := fitLine(values, s, d)
				if !ok {
					continue
				}
				f.Mode, f.MinEmpties, f.MaxEmpties = mode, ph[0], ph[1]
				out.Fits = append(out.Fits, f)
				if cfg.Progress != nil {
					cfg.Progress(fmt.Sprintf("%-7s empties %2d-%2d depth %2d from %d: A %.3f B %+6.1f sigma %6.1f (%d positions, %v)",
						mode, ph[0], ph[1], d, s, f.A, f.B, f.Sigma, f.N, time.Since(start).Round(time.Millisecond)))
				}
			}
		}
	}
	return out, nil
}

// nextRand is a xorshift step.
func nextRand(x *uint64) uint64 {
	*x ^= *x << 13
	*x ^= *x >> 7
	*x ^= *x << 17
	return *x
}

// noisyGame plays from mode's start until target empties are left: a random
// legal move one time in four, else the best by one-ply evaluation. It
// fails when the game ends first or the side to move then has fewer than two
// moves.
func (e *Engine) noisyGame(mode othello.Mode, target int, rng *uint64) (othello.Position, bool) {
	pos := othello.New(mode)
	for pos.Empties().Count() > target {
		if pos.GameOver() {
			return pos, false
		}
		legal := pos.LegalMoves()
		mv := othello.Pass
		switch {
		case len(legal) == 0:
		case nextRand(rng)%4 == 0 || centreOpen(pos):
			mv = legal[nextRand(rng)%uint64(len(legal))]
		default:
			mv = e.quickMove(pos)
		}
		next, err := pos.Play(mv)
		if err != nil {
			return pos, false
		}
		pos = next
	}
	return pos, !pos.GameOver() && len(pos.LegalMoves()) >= 2 && !centreOpen(pos)
}

// depthValues returns the full-window values of pos at depths 1 to
// maxDepth (index = depth), searched on one thread after clearing the
// table.
func (e *Engine) depthValues(ctx context.Context, pos othello.Position, maxDepth int) []int {
	e.tt.clear()
	j := &job{start: time.Now(), soft: 1 << 62}
	stopWatch := context.AfterFunc(ctx, func() { j.stop.Store(true) })
	defer stopWatch()
	t := &thread{tt: e.tt, ev8: e.ev8[pos.Mode], ev10: e.ev10[pos.Mode], salt: modeSalt(pos.Mode, false),
		anti: pos.Mode == othello.Anti, blocked: pos.Mode.Blocked(), job: j}
	p, o := pos.Discs(pos.Turn), pos.Discs(pos.Turn.Opponent())
	pl, ol := placementsLeft(pos)
	v := make([]int, maxDepth+1)
	for d := 1; d <= maxDepth; d++ {
		if pos.Size() == 10 {
			v[d] = t.mid10(p, o, d, -inf, inf, false)
		} else {
			v[d] = t.mid8(p.Lo, o.Lo, pl, ol, d, -inf, inf, false)
		}
	}
	return v
}

// fitLine fits values[i][deep] ≈ A·values[i][shallow] + B by least squares
// and returns the fit with the residuals' standard deviation.
func fitLine(values [][]int, shallow, deep int) (ProbCutFit, bool) {
	n := float64(len(values))
	if n < 3 {
		return ProbCutFit{}, false
	}
	var sx, sy, sxx, sxy float64
	for _, v := range values {
		x, y := float64(v[shallow]), float64(v[deep])
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	varX := sxx - sx*sx/n
	if varX <= 0 {
		return ProbCutFit{}, false
	}
	a := (sxy - sx*sy/n) / varX
	b := (sy - a*sx) / n
	var ss float64
	for _, v := range values {
		r := float64(v[deep]) - a*float64(v[shallow]) - b
		ss += r * r
	}
	return ProbCutFit{Depth: deep, Shallow: shallow, A: a, B: b, Sigma: math.Sqrt(ss / (n - 2)), N: len(values)}, true
}
