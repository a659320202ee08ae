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
)

// runProbCut fits the Multi-ProbCut parameters of one of the built-in
// engine's evaluations (-eval, search.CalibrateProbCut) and writes them as
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
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg := search.CalibrateConfig{Positions: *positions, MaxDepth8: *depth8, MaxDepth10: *depth10, Seed: *seed,
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
	pc, err := search.CalibrateProbCut(context.Background(), search.Options{HashMB: *hashMB, Eval8: ev.Eval8, Eval10: ev.Eval10}, cfg)
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
	if err := pc.WriteGo(&buf, fn, note); err != nil {
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
