package proc

import (
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/engines/internal/enginetest"
	"flipbot.dev/flipbot/internal/clock/clocktest"
)

// TestStderrBudget: the burst passes, then a line every 3 s (20 a
// minute); an hour refills the burst and no more; the dropped lines are
// one line at once and one with their count at the interval's end.
func TestStderrBudget(t *testing.T) {
	var log enginetest.Log
	clock := clocktest.New(time.Unix(100, 0))
	b := newStderrBudget(log.Logger(), clock)
	for range stderrBurst {
		assert.True(t, b.allow("e"), "the burst passes")
	}
	for range 5 {
		assert.False(t, b.allow("e"), "then nothing until tokens refill")
	}
	clock.Advance(3 * time.Second)
	assert.True(t, b.allow("e"), "one line 3 s later at 20 a minute")
	assert.False(t, b.allow("e"))
	assert.Equal(t, 1, strings.Count(log.String(), msgStderrDropped), "the first drop, at once")
	clock.Advance(stderrInterval)
	assert.Equal(t, 2, strings.Count(log.String(), msgStderrDropped))
	assert.Contains(t, log.String(), "more=5 within=1m0s engine=e")
	clock.Advance(time.Hour)
	for range stderrBurst {
		assert.True(t, b.allow("e"), "refilled up to the burst")
	}
	assert.False(t, b.allow("e"), "no more")
}

// stderrCounts returns how many stderr lines the log has, and how many
// it says were dropped (a first line each, then more=N).
func stderrCounts(out string) (logged, dropped int) {
	logged = strings.Count(out, "msg=\"engine stderr\" ")
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, msgStderrDropped) {
			continue
		}
		if m := regexp.MustCompile(`more=(\d+)`).FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			dropped += n
		} else {
			dropped++
		}
	}
	return logged, dropped
}

// readToEnd waits for p to exit and its stderr to be read to its end.
func readToEnd(t *testing.T, p *Process) {
	t.Helper()
	<-p.Done()
	// The readers end at the end of the pipes, which may come after the
	// exit (Windows); Stop would close them mid-way.
	read := make(chan struct{})
	go func() { p.readers.Wait(); close(read) }()
	select {
	case <-read:
	case <-time.After(10 * time.Second):
		t.Error("stderr not read to its end within 10 s")
	}
	p.Stop()
}

// TestStderrFloodIsBounded: an engine that writes 10,000 stderr lines at
// once gets the burst of them into the log, and the count of the rest in
// two lines (one at once, one at the interval's end); every line is
// accounted for.
func TestStderrFloodIsBounded(t *testing.T) {
	enginetest.NoLeak(t)
	var log enginetest.Log
	clock := clocktest.New(time.Unix(100, 0))
	logger := withBudget(log.Logger(), newStderrBudget(log.Logger(), clock))
	readToEnd(t, start(t, nil, Config{Name: "fake", Logger: logger}, "floodstderr"))
	clock.Advance(stderrInterval)
	out := log.String()
	logged, dropped := stderrCounts(out)
	assert.Equal(t, stderrBurst, logged, "the burst")
	assert.Equal(t, 2, strings.Count(out, msgStderrDropped), "the drops in two lines")
	assert.Equal(t, 10000, logged+dropped, "every line logged or counted")
}

// TestStderrBurstDoesNotRefillOnRestart: five engines in a row (an
// engine restarted after each flood) that share a budget get one burst
// between them, and the drops of all five are one line at once and one
// at the interval's end. Before, each start had a burst of 100 of its own
// and each flood a line of drops: gokrazy's 100 lines turned over at
// every restart.
func TestStderrBurstDoesNotRefillOnRestart(t *testing.T) {
	enginetest.NoLeak(t)
	var log enginetest.Log
	clock := clocktest.New(time.Unix(100, 0))
	logger := withBudget(log.Logger(), newStderrBudget(log.Logger(), clock))
	for range 5 {
		readToEnd(t, start(t, nil, Config{Name: "fake", Logger: logger.With("leg", 1)}, "floodstderr"))
	}
	clock.Advance(stderrInterval)
	out := log.String()
	logged, dropped := stderrCounts(out)
	assert.Equal(t, stderrBurst, logged, "one burst for five starts")
	assert.Equal(t, 2, strings.Count(out, msgStderrDropped), "the drops of all five in two lines")
	assert.Equal(t, 5*10000, logged+dropped, "every line logged or counted")
}

// TestWithStderrBudgetKeepsItsBudget: loggers made from one With… share
// its budget; another logger has none.
func TestWithStderrBudgetKeepsItsBudget(t *testing.T) {
	var log enginetest.Log
	l := WithStderrBudget(log.Logger(), nil)
	b := budgetOf(l)
	assert.NotNil(t, b)
	assert.Same(t, b, budgetOf(l.With("engine", "x").WithGroup("g")))
	assert.Nil(t, budgetOf(log.Logger()))
	l.Info("passes through")
	assert.Contains(t, log.String(), "passes through")
}

// TestStderrBelowTheLevelTakesNoBudget: the lines of an engine whose
// stderr goes to a level the log does not show (Egaroucid's, at Debug)
// take nothing of the shared budget, and count as no drop.
func TestStderrBelowTheLevelTakesNoBudget(t *testing.T) {
	enginetest.NoLeak(t)
	var log enginetest.Log
	atInfo := slog.New(slog.NewTextHandler(&log, nil))
	clock := clocktest.New(time.Unix(100, 0))
	b := newStderrBudget(atInfo, clock)
	logger := withBudget(atInfo, b)
	readToEnd(t, start(t, nil, Config{Name: "quiet", Logger: logger, StderrLevel: slog.LevelDebug}, "floodstderr"))
	assert.NotContains(t, log.String(), msgStderrDropped)
	for range stderrBurst {
		assert.True(t, b.allow("loud"), "the whole burst is left")
	}
}
