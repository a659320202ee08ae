package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
	"flipbot.dev/flipbot/engines/search/calib"
)

// runProbCut fits the Multi-ProbCut parameters of one of the built-in
// engine's evaluations (-eval, calib.ProbCut) and writes them as
// the Go table the engine uses with it (-out, normally
// engines/search/probcut_pattern.go or probcut_baseline.go). Progress and
// the fits go to stderr.
func runProbCut(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("probcut", flag.ContinueOnError)
	fs.SetOutput(stderr)
	positions := fs.Int("positions", 24, "positions per mode and phase")
	depth8 := fs.Int("depth8", 8, "deepest search fitted on 8x8")
	depth10 := fs.Int("depth10", 6, "deepest search fitted on 10x10")
	modes := fs.String("modes", "", "comma-separated modes (default: all)")
	seed := fs.Uint64("seed", 1, "seed of the positions")
	out := fs.String("out", "", "Go file to write (default: stdout)")
	hashMB := fs.Int("hash", 16, "transposition table size in MiB (cleared for every position)")
	evalName := fs.String("eval", eval.NamePattern, "evaluation fitted: pattern (trained) or baseline (hand-made)")
	end := fs.Bool("end", false, "fit the selective endgame instead (exact score from a shallow search, per empties; -out normally engines/search/probcut_end.go)")
	endMin := fs.Int("endmin", 0, "with -end: fewest empties fitted (default: the solver's first cut)")
	endMax := fs.Int("endmax", 22, "with -end: most empties fitted")
	shallow := fs.Int("shallow", 8, "with -end: deepest shallow search fitted")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *end {
		return runEndCut(args, stdout, stderr, *evalName, *modes, *out, calib.EndCutConfig{
			MinEmpties: *endMin, MaxEmpties: *endMax, Positions: *positions, MaxShallow: *shallow, Seed: *seed,
			Progress: func(s string) { fmt.Fprintln(stderr, s) }})
	}
	cfg := calib.ProbCutConfig{Positions: *positions, MaxDepth8: *depth8, MaxDepth10: *depth10, Seed: *seed,
		Progress: func(s string) { fmt.Fprintln(stderr, s) }}
	if *modes != "" {
		for _, name := range strings.Split(*modes, ",") {
			m, err := othello.ParseMode(strings.TrimSpace(name))
			if err != nil {
				fmt.Fprintf(stderr, "flipengine probcut: %v\n", err)
				return 2
			}
			cfg.Modes = append(cfg.Modes, m)
		}
	}
	ev, err := eval.ByName(*evalName)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine probcut: %v\n", err)
		return 2
	}
	start := time.Now()
	pc, err := calib.ProbCut(context.Background(), search.Options{HashMB: *hashMB, Eval8: ev.Eval8, Eval10: ev.Eval10}, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine probcut: %v\n", err)
		return 1
	}
	note := fmt.Sprintf("flipengine probcut %s (%v)", strings.Join(args, " "), time.Since(start).Round(time.Second))
	var buf bytes.Buffer
	fn := "patternProbCut"
	if *evalName == eval.NameBaseline {
		fn = "baselineProbCut"
	}
	if err := calib.WriteProbCutGo(&buf, pc, fn, note); err != nil {
		fmt.Fprintf(stderr, "flipengine probcut: %v\n", err)
		return 1
	}
	if *out == "" {
		_, _ = stdout.Write(buf.Bytes())
		return 0
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "flipengine probcut: %v\n", err)
		return 1
	}
	return 0
}

// runEndCut fits the selective endgame (calib.EndCut) for the
// pattern evaluation and writes the fits as the Go table the engine uses
// (patternEndCut).
func runEndCut(args []string, stdout, stderr io.Writer, evalName, modes, out string, cfg calib.EndCutConfig) int {
	if evalName != eval.NamePattern {
		fmt.Fprintln(stderr, "flipengine probcut: -end fits the pattern evaluation only")
		return 2
	}
	if modes != "" {
		for _, name := range strings.Split(modes, ",") {
			m, err := othello.ParseMode(strings.TrimSpace(name))
			if err != nil {
				fmt.Fprintf(stderr, "flipengine probcut: %v\n", err)
				return 2
			}
			cfg.Modes = append(cfg.Modes, m)
		}
	}
	ev, err := eval.ByName(evalName)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine probcut: %v\n", err)
		return 2
	}
	start := time.Now()
	fits, err := calib.EndCut(context.Background(), search.Options{Eval8: ev.Eval8, Eval10: ev.Eval10}, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine probcut: %v\n", err)
		return 1
	}
	note := fmt.Sprintf("flipengine probcut %s (%v)", strings.Join(args, " "), time.Since(start).Round(time.Second))
	var buf bytes.Buffer
	if err := calib.WriteEndCutGo(&buf, fits, "patternEndCut", note); err != nil {
		fmt.Fprintf(stderr, "flipengine probcut: %v\n", err)
		return 1
	}
	if out == "" {
		_, _ = stdout.Write(buf.Bytes())
		return 0
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "flipengine probcut: %v\n", err)
		return 1
	}
	return 0
}
