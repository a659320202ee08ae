package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"flipbot.dev/flipbot/bot/analysis"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/search"
)

// gamesAnalyse runs `flipbot games analyse`: the analysis of the games
// named (or of those that pass the filters and have none, newest first),
// each kept beside its game, a line per game as it is done and the time
// per mode at the end.
func gamesAnalyse(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	g := newGamesFlags("analyse", true, getenv, stderr)
	redo := g.fs.Bool("redo", false, "analyse games that have an analysis again")
	threads := g.fs.Int("threads", runtime.NumCPU(), "search threads")
	hashMB := g.fs.Int("hash-mb", 64, "the engine's table, in MiB")
	depth := g.fs.Int("depth", 0, "midgame search depth (default: per mode, bot/analysis.Defaults)")
	exact := g.fs.Int("exact-empties", 0, "solve exactly from this many empty squares (default: per mode)")
	ids, f, done, code := g.parseCommon(args)
	switch {
	case done:
		return code
	case *threads < 1 || *threads > 256:
		return g.usageError("--threads %d: want 1..256", *threads)
	case *hashMB < 1 || *hashMB > 4096:
		return g.usageError("--hash-mb %d: want 1..4096", *hashMB)
	case *depth < 0 || *depth > 30:
		return g.usageError("--depth %d: want 1..30", *depth)
	case *exact < 0 || *exact > 30:
		return g.usageError("--exact-empties %d: want 1..30", *exact)
	}
	for _, id := range ids {
		if !record.ValidID(id) {
			return g.usageError("%q is not a game id", id)
		}
	}
	s, err := g.open(false)
	if errors.Is(err, errNoGamesYet) && len(ids) == 0 {
		fmt.Fprintln(stderr, err)
		return exitOK
	}
	if err != nil {
		return g.fail(err)
	}
	todo, err := analyseQueue(s, f, ids, *redo)
	if err != nil {
		return g.fail(err)
	}
	if len(todo) == 0 {
		fmt.Fprintf(stderr, "nothing to analyse in %s (--redo analyses games again)\n", g.dir)
		return exitOK
	}
	ev, err := eval.Best()
	if err != nil {
		return g.fail(fmt.Errorf("the engine's evaluation: %w", err))
	}
	eng := search.New(search.Options{Threads: *threads, HashMB: *hashMB, Eval8: ev.Eval8, Eval10: ev.Eval10})
	opts := analysis.Options{Depth: *depth, ExactEmpties: *exact}
	fmt.Fprintf(stderr, "analysing %d %s with %d %s\n", len(todo), plural(len(todo), "game"), *threads, plural(*threads, "thread"))
	// One line per game as soon as it is done, in fixed columns (a
	// tabwriter would hold every line to the end).
	const row = "%-20s %-8s %5s %-10s %7s %7s %-11s %-26s %-26s %s\n"
	fmt.Fprintf(stdout, row, "ID", "MODE", "MOVES", "EXACT FROM", "SECONDS", "CPU S", "LOSS B/W", "WORST BLACK", "WORST WHITE", "TURNING POINTS")
	times := map[string][]gameTime{}
	failed := 0
	for _, id := range todo {
		game, err := s.Get(id)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", id, err)
			failed++
			continue
		}
		start := time.Now()
		cpu0, cpuKnown := processCPU()
		a, err := analysis.Game(ctx, eng, &game, opts)
		took := time.Since(start)
		cpu1, _ := processCPU()
		cpu, cpuText := cpu1-cpu0, "-"
		if cpuKnown {
			cpuText = fmt.Sprintf("%.1f", cpu.Seconds())
		}
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "stopped: %s not analysed\n", id)
			return exitFailure
		}
		if err == nil {
			err = s.SaveAnalysis(a)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", id, err)
			failed++
			continue
		}
		times[game.Mode] = append(times[game.Mode], gameTime{wall: took, cpu: cpu, cpuKnown: cpuKnown})
		sum := a.Summary()
		fmt.Fprintf(stdout, row, id, game.Mode, fmt.Sprint(len(game.Moves)), exactFrom(a), fmt.Sprintf("%.1f", took.Seconds()), cpuText,
			fmt.Sprintf("%.2f/%.2f", sum.MeanLoss[0], sum.MeanLoss[1]), worstText(sum.Worst[0]), worstText(sum.Worst[1]),
			turningText(&a))
	}
	writeAnalyseTimes(stdout, times)
	if failed > 0 {
		fmt.Fprintf(stderr, "%d games not analysed\n", failed)
		return exitFailure
	}
	return exitOK
}

// analyseQueue returns the ids to analyse: ids when given (each must be
// kept), else those passing f without an analysis (all with redo), newest
// first.
func analyseQueue(s *record.Store, f record.Filter, ids []string, redo bool) ([]string, error) {
	if len(ids) > 0 {
		for _, id := range ids {
			if _, err := s.Get(id); err != nil {
				return nil, err
			}
		}
		return ids, nil
	}
	sums, _ := s.List(f, 0, 0)
	var out []string
	for _, sum := range sums {
		if redo || sum.Analysis == nil {
			out = append(out, sum.ID)
		}
	}
	return out, nil
}

// exactFrom is the move from which an analysis is exact ("-" if none).
func exactFrom(a record.Analysis) string {
	for i, m := range a.Moves {
		if m.Exact {
			return fmt.Sprintf("move %d", i+1)
		}
	}
	return "-"
}

// worstText is a side's worst move: "19. b1 −6.0 (mistake)", "no
// mistake" or "-" (record.Worst.String).
func worstText(w record.Worst) string { return w.String() }

// turningText is an analysis' turning points as moves are named
// everywhere ("31. e6, 40. c3"; record.MoveLabel), "-" when none.
func turningText(a *record.Analysis) string {
	var out []string
	for _, p := range a.TurningPoints {
		if p >= 1 && p <= len(a.Moves) {
			out = append(out, record.MoveLabel(p, a.Moves[p-1].Square))
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}

// gameTime is the time one analysis took: wall clock and the process's
// CPU (user and system, all threads) when known.
type gameTime struct {
	wall, cpu time.Duration
	cpuKnown  bool
}

// writeAnalyseTimes prints, per mode, the games analysed and the mean and
// longest time per game, wall clock and CPU.
func writeAnalyseTimes(w io.Writer, times map[string][]gameTime) {
	if len(times) == 0 {
		return
	}
	modes := make([]string, 0, len(times))
	for m := range times {
		modes = append(modes, m)
	}
	slices.Sort(modes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nMODE\tGAMES\tMEAN S/GAME\tMAX S/GAME\tMEAN CPU S/GAME\tMAX CPU S/GAME")
	for _, m := range modes {
		var total, longest, cpu, cpuMax time.Duration
		known := true
		for _, d := range times[m] {
			total += d.wall
			longest = max(longest, d.wall)
			cpu += d.cpu
			cpuMax = max(cpuMax, d.cpu)
			known = known && d.cpuKnown
		}
		n := float64(len(times[m]))
		cpuMean, cpuLongest := "-", "-"
		if known {
			cpuMean, cpuLongest = fmt.Sprintf("%.1f", cpu.Seconds()/n), fmt.Sprintf("%.1f", cpuMax.Seconds())
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%s\t%s\n", m, len(times[m]), total.Seconds()/n, longest.Seconds(), cpuMean, cpuLongest)
	}
	_ = tw.Flush()
}

// errNoAnalysis reports whether err only says that the game has no
// analysis.
func errNoAnalysis(err error) bool { return errors.Is(err, record.ErrNoAnalysis) }

// lossText is a move's loss and class, blank for the best move.
func lossText(m record.AnalysedMove) string {
	if m.Move == -1 {
		return "pass"
	}
	c := record.LossClass(m.Loss)
	if c == record.ClassBest {
		return "best"
	}
	return fmt.Sprintf("−%.1f %s", m.Loss, c)
}

func depthText(depth int, exact bool) string {
	if exact {
		return "exact"
	}
	return fmt.Sprintf("d%d", depth)
}
