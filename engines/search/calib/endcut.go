package calib

import (
	"context"
	"fmt"
	"time"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// EndCutConfig says what EndCut measures. The zero value gives the
// defaults.
type EndCutConfig struct {
	// Modes to fit (default: std and anti; reversi's caps and 10×10 have
	// no selective endgame).
	Modes []othello.Mode
	// MinEmpties and MaxEmpties bound the empties fitted (default
	// search.EndCutMinEmpties and 22); the solver uses the nearest fit beyond.
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

// EndCut fits the endgame Multi-ProbCut for the evaluations and
// midgame Multi-ProbCut of opts: for each mode and number of empties it
// plays positions by the noisy policy of ProbCut, solves each
// exactly, searches it with a full window at depths 1 to MaxShallow, and
// fits exact ≈ A·shallow + B by least squares for every shallow depth.
func EndCut(ctx context.Context, opts search.Options, cfg EndCutConfig) ([]search.EndCutFit, error) {
	if len(cfg.Modes) == 0 {
		cfg.Modes = []othello.Mode{othello.Std, othello.Anti}
	}
	if cfg.MinEmpties <= 0 {
		cfg.MinEmpties = search.EndCutMinEmpties
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
	e := search.New(opts)
	var out []search.EndCutFit
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
				pos, ok := e.NoisyGame(mode, n, &rng)
				if !ok || pos.Empties().Count() != n {
					continue
				}
				v, ok := e.EndValues(ctx, pos, cfg.MaxShallow)
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
				fit := search.EndCutFit{Mode: mode, Empties: n, Shallow: s, A: f.A, B: f.B / eval.Disc, Sigma: f.Sigma / eval.Disc, N: f.N}
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
