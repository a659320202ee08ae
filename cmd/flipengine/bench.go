package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// runBench searches the fixed benchmark positions: each midgame position for
// -time (depth reached, nodes/s), each endgame position exactly (time,
// nodes/s), then totals.
func runBench(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef engineFlags
	ef.register(fs)
	think := fs.Duration("time", time.Second, "time per midgame position")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	eng, err := ef.engine(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine bench: %v\n", err)
		return 1
	}
	defer eng.Close()
	var nodes uint64
	var spent time.Duration
	for _, b := range search.BenchPositions() {
		eng.ClearHash()
		lim := search.Limits{Time: *think}
		if b.Endgame {
			lim = search.Limits{Exact: true}
		}
		r, err := eng.Search(context.Background(), b.Position, lim)
		if err != nil {
			fmt.Fprintf(stderr, "flipengine bench: %s: %v\n", b.Name, err)
			return 1
		}
		nodes += r.Nodes
		spent += r.Elapsed
		kind := fmt.Sprintf("depth %2d", r.Depth)
		if r.Exact {
			kind = fmt.Sprintf("exact %2d", r.Depth)
		}
		fmt.Fprintf(stdout, "%-12s %2d empties  %s  %-4s %+7.2f  %11d nodes  %7.3f s  %6.2f Mn/s\n",
			b.Name, b.Position.Empties().Count(), kind, othello.SquareName(r.Move, b.Position.Size()),
			r.Score, r.Nodes, r.Elapsed.Seconds(), mnps(r.Nodes, r.Elapsed))
	}
	fmt.Fprintf(stdout, "total  %d nodes  %.3f s  %.2f Mn/s\n", nodes, spent.Seconds(), mnps(nodes, spent))
	return 0
}
