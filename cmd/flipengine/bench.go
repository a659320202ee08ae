package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// runBench searches the fixed benchmark positions: each midgame position for
// -time (depth reached, nodes/s), each endgame position exactly (time,
// nodes/s), then totals. -mid=false or -end=false leaves a phase out and
// -modes picks modes, so that the process's CPU time measures one kind of
// search.
func runBench(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef engineFlags
	ef.register(fs)
	think := fs.Duration("time", time.Second, "time per midgame position")
	mid := fs.Bool("mid", true, "search the midgame positions")
	end := fs.Bool("end", true, "solve the endgame positions")
	modes := fs.String("modes", "", "comma-separated modes (default: all)")
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
	want := map[othello.Mode]bool{}
	if *modes != "" {
		for _, name := range strings.Split(*modes, ",") {
			m, err := othello.ParseMode(strings.TrimSpace(name))
			if err != nil {
				fmt.Fprintf(stderr, "flipengine bench: %v\n", err)
				return 2
			}
			want[m] = true
		}
	}
	for _, b := range search.BenchPositions() {
		if b.Endgame && !*end || !b.Endgame && !*mid || len(want) > 0 && !want[b.Position.Mode] {
			continue
		}
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
