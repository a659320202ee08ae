package calib

import (
	"context"
	"fmt"
	"math"
	"time"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// ProbCutConfig says what ProbCut measures. The zero value gives
// the defaults.
type ProbCutConfig struct {
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
	lo, width := search.SolveEmpties(8)+1, 8
	if mode.Size() == 10 {
		lo, width = search.SolveEmpties(10)+1, 12
	}
	var out [][2]int
	for ; lo <= total; lo += width {
		out = append(out, [2]int{lo, min(lo+width-1, total)})
	}
	return out
}

// ProbCut fits Multi-ProbCut parameters for the evaluations of opts
// (its ProbCut is ignored: the searches measured run without it). For each
// mode and phase it plays positions by a noisy one-ply policy from the
// start, searches each with a full window at depths 1 to the maximum, and
// fits deep ≈ A·shallow + B by least squares for every depth from 3 with
// its shallow depth (search.ProbCutShallow).
func ProbCut(ctx context.Context, opts search.Options, cfg ProbCutConfig) (*search.ProbCut, error) {
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
	opts.ProbCut = &search.ProbCut{}
	opts.Threads = 1
	if opts.HashMB <= 0 {
		opts.HashMB = 16
	}
	e := search.New(opts)
	out := &search.ProbCut{}
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
				target := ph[0] + int(search.Xorshift(&rng)%uint64(ph[1]-ph[0]+1))
				pos, ok := e.NoisyGame(mode, target, &rng)
				if !ok {
					continue
				}
				values = append(values, e.DepthValues(ctx, pos, maxDepth))
			}
			for d := search.ProbCutMinDepth; d <= maxDepth; d++ {
				s := search.ProbCutShallow(d)
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

// fitLine fits values[i][deep] ≈ A·values[i][shallow] + B by least squares
// and returns the fit with the residuals' standard deviation.
func fitLine(values [][]int, shallow, deep int) (search.ProbCutFit, bool) {
	n := float64(len(values))
	if n < 3 {
		return search.ProbCutFit{}, false
	}
	var sx, sy, sxx, sxy float64
	for _, v := range values {
		x, y := float64(v[shallow]), float64(v[deep])
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	varX := sxx - sx*sx/n
	if varX <= 0 {
		return search.ProbCutFit{}, false
	}
	a := (sxy - sx*sy/n) / varX
	b := (sy - a*sx) / n
	var ss float64
	for _, v := range values {
		r := float64(v[deep]) - a*float64(v[shallow]) - b
		ss += r * r
	}
	return search.ProbCutFit{Depth: deep, Shallow: shallow, A: a, B: b, Sigma: math.Sqrt(ss / (n - 2)), N: len(values)}, true
}
