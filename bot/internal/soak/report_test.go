package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/engines/othello"
)

func TestQuarterMax(t *testing.T) {
	first, last := quarterMax([]int64{5, 1, 2, 3, 4, 9, 1, 7})
	assert.Equal(t, int64(5), first)
	assert.Equal(t, int64(7), last)
	first, last = quarterMax(nil)
	assert.Zero(t, first)
	assert.Zero(t, last)
}

// played returns counters of a clean run.
func played() *counters {
	c := &counters{}
	c.playedIn(othello.Std)
	c.playedIn(othello.Grand)
	c.byDiscs.Add(2)
	c.won.Add(2)
	c.moves.Add(40)
	c.engineMoves.Add(36)
	c.forcedMoves.Add(1)
	c.fallbacks.Add(3)
	c.engineLate.Add(2)
	c.noteArenaMove(100 * time.Microsecond)
	return c
}

var clean = outcome{base: snapshot{goroutines: 5, fds: 9}, after: snapshot{goroutines: 5, fds: 9},
	rss: []int64{100, 110, 120, 130}, heap: []int64{10, 11, 12, 13}, wall: time.Minute}

func TestReportOfACleanRun(t *testing.T) {
	var b strings.Builder
	assert.True(t, report(&b, played(), clean), b.String())
	out := b.String()
	assert.Contains(t, out, "soak: 60 s of play, 2 matches (std 1, anti 0, grand 1, octagon 0, reversi 0), 40 moves sent")
	assert.Contains(t, out, "fallback moves (built-in quick move instead of the engine's): 3 of 40 the bot logged (engine 36, forced 1); engine moves that ended without an answer at their deadline: 2")
	assert.Contains(t, out, "RSS max, first/last quarter: 100 / 130 KiB (4 samples); heap in use: 10 / 13 KiB")
	assert.NotContains(t, out, "FAIL")
}

func TestReportFails(t *testing.T) {
	for name, tc := range map[string]struct {
		c    func(*counters)
		o    func(*outcome)
		want string
	}{
		"illegal":      {c: func(c *counters) { c.illegal.Add(1) }, want: "illegal moves"},
		"time loss":    {c: func(c *counters) { c.myTimeouts.Add(1) }, want: "legs the bot lost on time"},
		"not by discs": {c: func(c *counters) { c.notByDiscs.Add(1) }, want: "matches not ended by discs"},
		"no match":     {c: func(c *counters) { c.matches.Store(0) }, want: "no match was played: FAIL"},
		"no source": {c: func(c *counters) { c.engineMoves.Store(0); c.forcedMoves.Store(0); c.fallbacks.Store(0) },
			want: `the arena took moves but the bot logged none with a "source" attribute: FAIL`},
		"goroutines": {o: func(o *outcome) { o.after.goroutines++ }, want: "resources did not come back: FAIL"},
		"engines":    {o: func(o *outcome) { o.after.engines = 1 }, want: "resources did not come back: FAIL"},
		"run error":  {o: func(o *outcome) { o.runErr = errors.New("boom") }, want: "Run returned boom: FAIL"},
	} {
		c, o := played(), clean
		if tc.c != nil {
			tc.c(c)
		}
		if tc.o != nil {
			tc.o(&o)
		}
		var b strings.Builder
		assert.False(t, report(&b, c, o), name)
		for _, line := range strings.Split(b.String(), "\n") {
			if strings.Contains(line, tc.want) {
				assert.Contains(t, line, "FAIL", name)
			}
		}
		assert.Contains(t, b.String(), tc.want, name)
	}
}
