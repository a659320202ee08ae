package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// runMoveLoss plays one move in each position of OBF files under a game
// clock and scores it against the exact move scores the files list: the
// mean loss in discs against perfect play and the share of best moves.
// Each position is asked as `flipengine engine` answers a request with
// remaining_ms -remaining and budget_ms -budget, one leg after the other of
// the same match: through the one clock planner (legClocks), so that the
// figures are the product's, not those of the budget as a ceiling.
func runMoveLoss(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("moveloss", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef engineFlags
	ef.register(fs)
	remaining := fs.Duration("remaining", 4*time.Second, "the mover's clock in each request (remaining_ms)")
	budget := fs.Duration("budget", 2*time.Second, "the request's budget (budget_ms)")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "usage: flipengine moveloss FILE.obf… [-remaining D] [-budget D] [-eval E] [-threads T]")
		return 2
	}
	eng, err := ef.engine(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine moveloss: %v\n", err)
		return 1
	}
	defer eng.Close()
	clocks := newLegClocks()
	n, best, loss := 0, 0, 0
	var spent time.Duration
	var nodes uint64
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "flipengine moveloss: %v\n", err)
			return 1
		}
		for i, text := range strings.Split(string(data), "\n") {
			if t := strings.TrimSpace(text); t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			p, err := search.ParseOBF(text)
			if err != nil {
				fmt.Fprintf(stderr, "flipengine moveloss: %s line %d: %v\n", name, i+1, err)
				return 1
			}
			want, ok := p.Best()
			if !ok {
				fmt.Fprintf(stderr, "flipengine moveloss: %s line %d lists no move scores\n", name, i+1)
				return 1
			}
			eng.ClearHash()
			wire := othello.NewEngineRequest(p.Position)
			wire.MatchID, wire.RemainingMS, wire.BudgetMS = 1, remaining.Milliseconds(), budget.Milliseconds()
			start := time.Now()
			b, overhead := clocks.plan(wire, start)
			res, err := eng.Move(context.Background(), protocolRequest(p.Position, wire, b, overhead))
			clocks.answered(wire, time.Since(start), time.Now())
			if err != nil {
				fmt.Fprintf(stderr, "flipengine moveloss: %s line %d: %v\n", name, i+1, err)
				return 1
			}
			got, listed := p.Scores[res.Move]
			if !listed {
				fmt.Fprintf(stderr, "flipengine moveloss: %s line %d: move %s not listed\n", name, i+1, othello.SquareName(res.Move, 8))
				return 1
			}
			n++
			loss += want - got
			if got == want {
				best++
			}
			spent += res.Elapsed
			nodes += res.Nodes
			fmt.Fprintf(stdout, "%s:%d  %-4s %+3d  best %+3d  loss %2d  depth %2d exact %-5v %6d ms\n", name, i+1,
				othello.SquareName(res.Move, 8), got, want, want-got, res.Depth, res.Exact, res.Elapsed.Milliseconds())
		}
	}
	if n == 0 {
		fmt.Fprintln(stderr, "flipengine moveloss: no positions")
		return 1
	}
	fmt.Fprintf(stdout, "positions %d  mean loss %.2f discs  best moves %d (%.0f %%)  mean time %d ms  nodes %d\n",
		n, float64(loss)/float64(n), best, 100*float64(best)/float64(n), spent.Milliseconds()/int64(n), nodes)
	return 0
}
