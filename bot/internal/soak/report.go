package main

import (
	"fmt"
	"io"
	"time"

	"flipbot.dev/flipbot/engines/othello"
)

// outcome is what the report is made of besides the counters.
type outcome struct {
	// base and after are the resources before the bot started and after
	// it stopped.
	base, after snapshot
	// rss and heap are the samples taken during the play.
	rss, heap []int64
	// wall is the time played.
	wall time.Duration
	// runErr is what the bot's Run returned.
	runErr error
}

// report writes the soak's figures to w and reports whether every
// zero-figure is zero and every resource came back.
func report(w io.Writer, c *counters, o outcome) bool {
	ok := true
	fail := func(format string, args ...any) {
		fmt.Fprintf(w, format+": FAIL\n", args...)
		ok = false
	}
	check := func(name string, got int64) {
		mark := "ok"
		if got != 0 {
			mark, ok = "FAIL", false
		}
		fmt.Fprintf(w, "%-42s %8d  %s\n", name, got, mark)
	}
	fmt.Fprintf(w, "soak: %.0f s of play, %d matches (", o.wall.Seconds(), c.matches.Load())
	sep := ""
	for _, m := range othello.AllModes() {
		fmt.Fprintf(w, "%s%s %d", sep, m, c.inMode(m))
		sep = ", "
	}
	fmt.Fprintf(w, "), %d moves sent\n", c.moves.Load())
	fmt.Fprintf(w, "faults: %d stream cuts, %d 503 bursts, %d lost answers, %d engine kills, %d engine hangs, %d server restarts\n",
		c.cuts.Load(), c.f503.Load(), c.lost.Load(), c.crashes.Load(), c.hangs.Load(), c.restarts.Load())
	fmt.Fprintf(w, "results: %d won, %d lost, %d drawn; %d by discs; opponent legs lost on time %d; move answers other than 200: %d\n",
		c.won.Load(), c.defeats.Load(), c.drawn.Load(), c.byDiscs.Load(), c.oppTimeouts.Load(), c.moveErrors.Load())
	fmt.Fprintf(w, "fallback moves (built-in quick move instead of the engine's): %d of %d the bot logged (engine %d, forced %d",
		c.fallbacks.Load(), c.sourced(), c.engineMoves.Load(), c.forcedMoves.Load())
	if n := c.otherSources.Load(); n > 0 {
		fmt.Fprintf(w, ", other %d", n)
	}
	fmt.Fprintf(w, "); engine moves that ended without an answer at their deadline: %d\n", c.engineLate.Load())
	p50, p99, top, n := c.arenaMovePercentiles()
	fmt.Fprintf(w, "arena's handling of the bot's move requests: median %v, 99th percentile %v, max %v (%d requests)\n",
		p50.Round(time.Microsecond), p99.Round(time.Microsecond), top.Round(time.Microsecond), n)
	check("illegal moves", c.illegal.Load())
	check("legs the bot lost on time", c.myTimeouts.Load())
	check("matches not ended by discs", c.notByDiscs.Load())
	if c.matches.Load() == 0 {
		fail("no match was played")
	}
	if c.moves.Load()-c.moveErrors.Load() > 0 && c.sourced() == 0 {
		// The fallback figure would read 0 whatever happened.
		fail("the arena took moves but the bot logged none with a %q attribute", sourceKey)
	}
	r0, r1 := quarterMax(o.rss)
	h0, h1 := quarterMax(o.heap)
	fmt.Fprintf(w, "RSS max, first/last quarter: %d / %d KiB (%d samples); heap in use: %d / %d KiB\n", r0, r1, len(o.rss), h0, h1)
	fmt.Fprintf(w, "goroutines before/after: %d / %d; fds: %d / %d; engine processes after: %d\n",
		o.base.goroutines, o.after.goroutines, o.base.fds, o.after.fds, o.after.engines)
	if !cameBack(o.base, o.after) {
		fail("resources did not come back")
	}
	if o.runErr != nil {
		fail("Run returned %v", o.runErr)
	}
	return ok
}

// cameBack reports whether the resources after the bot stopped are back to
// what they were before it started (and no engine is left).
func cameBack(base, after snapshot) bool {
	return after.goroutines <= base.goroutines && after.fds <= base.fds && after.engines == 0
}

// quarterMax returns the largest value of the first and of the last
// quarter of xs.
func quarterMax(xs []int64) (first, last int64) {
	q := max(1, len(xs)/4)
	for i, x := range xs {
		if i < q {
			first = max(first, x)
		}
		if i >= len(xs)-q {
			last = max(last, x)
		}
	}
	return
}
