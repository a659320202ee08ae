// Command thinkuse measures how much of the clock plan's think the
// built-in engine spends. It replays flipbot's own moves of game records
// (the JSON lines flipbot keeps, e.g. from `flipbot-arena demo
// --games-dir DIR`), and for each with -min to -max empties and more than
// one legal move asks the engine for a move as the bot does: the position,
// the mover's clock as it was then (the record's), and the budget the one
// clock planner (engines/timeplan) gives it under the bot's default cap.
// It prints each move's think (the plan's Target) against the time the
// engine took, and the totals:
//
//	go run ./bot/internal/thinkuse -min 22 -max 44 DIR/games-*.jsonl
//
// The engine keeps its table through a leg, as the bot's does. One engine
// thread (-threads) by default: a paired match's two legs share the
// board's cores. The clock does not run: each move gets the record's clock,
// so every move is measured against the same plan whatever the others
// took. One file, main.go. A command beside the bot, not a shipped one: it
// imports the records (bot/record), the engine request (engines), the
// built-in engine (engines/search) with its evaluations (engines/eval),
// and the planner (engines/timeplan).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/search"
	"flipbot.dev/flipbot/engines/timeplan"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "thinkuse:", err)
		os.Exit(1)
	}
}

type options struct {
	minEmpties, maxEmpties int
	threads, hashMB        int
	cap, overhead          time.Duration
	eval                   string
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("thinkuse", flag.ContinueOnError)
	var o options
	fs.IntVar(&o.minEmpties, "min", 22, "fewest empties of a measured move")
	fs.IntVar(&o.maxEmpties, "max", 44, "most empties of a measured move")
	fs.IntVar(&o.threads, "threads", 1, "engine threads")
	fs.IntVar(&o.hashMB, "hash", 64, "engine table, MiB")
	fs.DurationVar(&o.cap, "cap", 10*time.Second, "the per-move cap (flipbot's --max-think-seconds)")
	fs.DurationVar(&o.overhead, "overhead", 30*time.Millisecond, "the per-move overhead the plan assumes (the bot measures it)")
	fs.StringVar(&o.eval, "eval", "", "evaluation (default: flipbot's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("usage: thinkuse [flags] GAMES.jsonl…")
	}
	ev, err := eval.ByName(o.eval)
	if err != nil {
		return err
	}
	var t tally
	for _, name := range fs.Args() {
		if err := measureFile(ctx, name, o, ev, out, &t); err != nil {
			return err
		}
	}
	if t.moves == 0 {
		return errors.New("no move of flipbot's in the records within -min and -max empties")
	}
	fmt.Fprintf(out, "all: %d moves, %d legs: took %.1f s of a think of %.1f s (%.0f %%); the budget hit %d times\n",
		t.moves, t.legs, t.took.Seconds(), t.think.Seconds(), t.share(), t.atBudget)
	return nil
}

// tally sums the measured moves of a leg, or of every leg.
type tally struct {
	moves, legs, atBudget int
	took, think           time.Duration
}

// add counts leg's moves in t.
func (t *tally) add(leg tally) {
	t.moves += leg.moves
	t.legs += leg.legs
	t.atBudget += leg.atBudget
	t.took += leg.took
	t.think += leg.think
}

// share is the time taken as a percentage of the think.
func (t *tally) share() float64 { return 100 * t.took.Seconds() / t.think.Seconds() }

func measureFile(ctx context.Context, name string, o options, ev *eval.Set, out io.Writer, t *tally) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, record.MaxLineBytes)
	for line := 1; sc.Scan(); line++ {
		g, err := record.ParseLine(sc.Bytes())
		if err != nil {
			return fmt.Errorf("%s line %d: %w", name, line, err)
		}
		if err := measureLeg(ctx, &g, o, ev, out, t); err != nil {
			return fmt.Errorf("%s line %d: %w", name, line, err)
		}
	}
	return sc.Err()
}

// measureLeg asks a fresh engine for each of flipbot's moves of g in the
// empties range.
func measureLeg(ctx context.Context, g *record.Game, o options, ev *eval.Set, out io.Writer, t *tally) error {
	positions, err := g.Replay()
	if err != nil {
		return err
	}
	eng := search.New(search.Options{Threads: o.threads, HashMB: o.hashMB, Eval8: ev.Eval8, Eval10: ev.Eval10})
	defer eng.Close()
	clock := time.Duration(g.ClockMS) * time.Millisecond
	leg := tally{legs: 1}
	for i, m := range g.Moves {
		pos := positions[i]
		if m.Color != g.MyColor {
			continue
		}
		n := pos.Empties().Count()
		if n >= o.minEmpties && n <= o.maxEmpties && pos.Legal().Count() > 1 {
			p := timeplan.Plan(timeplan.Count(pos), timeplan.Clock{Remaining: clock, Cap: o.cap, Overhead: o.overhead})
			if p.Limit <= 0 {
				continue // the panic mode: no search to measure
			}
			res, err := eng.Move(ctx, engines.Request{Position: pos, Remaining: clock, Budget: p.Limit, Overhead: o.overhead})
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "%s leg %d  %2d empties  clock %5.1f s  think %5.2f s  budget %5.2f s  took %5.2f s (%3.0f %%)  depth %d exact %v\n",
				g.Mode, g.Leg, n, clock.Seconds(), p.Target.Seconds(), p.Limit.Seconds(), res.Elapsed.Seconds(),
				100*res.Elapsed.Seconds()/p.Target.Seconds(), res.Depth, res.Exact)
			leg.took += res.Elapsed
			leg.think += p.Target
			leg.moves++
			if res.Elapsed >= p.Limit-50*time.Millisecond {
				leg.atBudget++
			}
		}
		clock = time.Duration(m.ClockMS) * time.Millisecond
	}
	if leg.moves == 0 {
		return nil
	}
	fmt.Fprintf(out, "%s leg %d  %d moves: took %.1f s of a think of %.1f s (%.0f %%)\n",
		g.Mode, g.Leg, leg.moves, leg.took.Seconds(), leg.think.Seconds(), leg.share())
	t.add(leg)
	return nil
}
