package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"flipbot.dev/flipbot/engines/othello"
)

// runPerft prints `perft <depth> <count> <seconds> <nodes/s>` for each depth
// from 1 to -depth, from the mode's starting position.
func runPerft(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("perft", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modeName := fs.String("mode", "std", "game mode: std, anti, grand, octagon or reversi")
	depth := fs.Int("depth", 9, "deepest depth to count (1–20)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	mode, err := othello.ParseMode(*modeName)
	if err != nil {
		fmt.Fprintln(stderr, "flipengine perft:", err)
		return 2
	}
	if *depth < 1 || *depth > 20 {
		fmt.Fprintf(stderr, "flipengine perft: depth %d outside 1..20\n", *depth)
		return 2
	}
	pos := othello.New(mode)
	for d := 1; d <= *depth; d++ {
		start := time.Now()
		n := othello.Perft(pos, d)
		secs := time.Since(start).Seconds()
		rate := 0.0
		if secs > 0 {
			rate = float64(n) / secs
		}
		fmt.Fprintf(stdout, "perft %d %d %.3f %.0f\n", d, n, secs, rate)
	}
	return 0
}
