package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena/arenatest"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

func TestDurationHistQuantiles(t *testing.T) {
	var h durationHist
	assert.Equal(t, time.Duration(0), h.quantile(0.5))
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Millisecond)
	}
	h.add(0) // below the first bucket
	within := func(want, got time.Duration) {
		t.Helper()
		assert.InEpsilon(t, float64(want), float64(got), 0.021, "want %v, got %v", want, got)
	}
	within(500*time.Millisecond, h.quantile(0.5))
	within(990*time.Millisecond, h.quantile(0.99))
	assert.Equal(t, time.Second, h.quantile(1))
	assert.Equal(t, time.Second, h.max)
	assert.Equal(t, int64(1001), h.n)
	h.add(100 * time.Hour) // the last bucket
	assert.Equal(t, 100*time.Hour, h.quantile(1))
}

func TestSourceCounterCountsTheAttributeNotTheMessage(t *testing.T) {
	c := &counters{}
	var buf bytes.Buffer
	noTime := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	next := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: noTime})
	log := slog.New(sourceCounter{next: next, c: c})
	bl := log.With("side", "bot")
	bl.Info("move", "match", 1, "source", "engine")
	bl.Info("any wording at all", "source", "fallback")
	bl.Debug("a fallback logged at another level", "source", "fallback")
	bl.Info("move", "source", "forced")
	bl.Info("move", "source", "guess")
	bl.Warn("playing a fallback move", "reason", "engine failed") // no source: not a move sent
	bl.WithGroup("g").Info("move", "source", "fallback")          // not the bot's attribute
	log.With("source", "fallback").Info("move")                   // nor is a logger's
	assert.Equal(t, int64(1), c.engineMoves.Load())
	assert.Equal(t, int64(2), c.fallbacks.Load())
	assert.Equal(t, int64(1), c.forcedMoves.Load())
	assert.Equal(t, int64(1), c.otherSources.Load())
	assert.Equal(t, int64(5), c.sourced())
	assert.Equal(t, "level=WARN msg=\"playing a fallback move\" side=bot reason=\"engine failed\"\n", buf.String(),
		"the records next enables are passed on, With attributes kept")
}

func TestNoteMove(t *testing.T) {
	c := &counters{}
	assert.False(t, c.noteMove(arenatest.MoveCall{Fault: arenatest.Answered}), "a fault's answer")
	assert.False(t, c.noteMove(arenatest.MoveCall{Reached: true, Status: http.StatusOK, Took: time.Millisecond}))
	assert.False(t, c.noteMove(arenatest.MoveCall{Fault: arenatest.LostAnswer, Reached: true, Status: http.StatusOK}),
		"applied though its answer was lost")
	assert.True(t, c.noteMove(arenatest.MoveCall{Reached: true, Status: http.StatusConflict, Code: flipsight.CodeIllegalMove}))
	assert.True(t, c.noteMove(arenatest.MoveCall{Reached: true, Status: http.StatusConflict, Code: flipsight.CodeStaleRevision}))
	assert.Equal(t, int64(4), c.moves.Load())
	assert.Equal(t, int64(2), c.moveErrors.Load())
	assert.Equal(t, int64(1), c.illegal.Load())
	_, _, top, n := c.arenaMovePercentiles()
	assert.Equal(t, 4, n)
	assert.Equal(t, time.Millisecond, top)
}

// scripted is an engine that answers after delay or fails with err.
type scripted struct {
	delay time.Duration
	err   error
}

func (scripted) Name() string               { return "scripted" }
func (scripted) Supports(othello.Mode) bool { return true }
func (scripted) Close() error               { return nil }
func (s scripted) Move(ctx context.Context, _ engines.Request) (engines.Result, error) {
	select {
	case <-time.After(s.delay):
		return engines.Result{Move: 19}, s.err
	case <-ctx.Done():
		return engines.Result{}, ctx.Err()
	}
}

func TestLateEngineCountsMovesWithoutAnAnswerByTheirDeadline(t *testing.T) {
	var late atomic.Int64
	move := func(e engines.Engine, budget time.Duration, cancelAfter time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), budget)
		defer cancel()
		if cancelAfter > 0 {
			time.AfterFunc(cancelAfter, cancel)
		}
		_, err := lateEngine{Engine: e, late: &late}.Move(ctx, engines.Request{})
		return err
	}
	require.NoError(t, move(scripted{}, time.Second, 0))
	require.Error(t, move(scripted{err: errors.New("crashed")}, time.Second, 0))
	assert.Zero(t, late.Load(), "answers and early failures are not late")
	require.Error(t, move(scripted{delay: time.Hour}, 20*time.Millisecond, 0))
	assert.Equal(t, int64(1), late.Load(), "no answer by the deadline")
	require.Error(t, move(scripted{delay: time.Hour}, time.Hour, 10*time.Millisecond))
	assert.Equal(t, int64(1), late.Load(), "dropped (the leg moved on) before its deadline")
}

// starting is a scripted engine with a process to start.
type starting struct {
	scripted
	started *atomic.Int32
}

func (s starting) Start() error { s.started.Add(1); return nil }

func TestLateEngineKeepsTheStarter(t *testing.T) {
	var late atomic.Int64
	var started atomic.Int32
	var e engines.Engine = lateEngine{Engine: starting{started: &started}, late: &late}
	s, ok := e.(engines.Starter)
	require.True(t, ok, "the bot starts it ahead of its moves")
	require.NoError(t, s.Start())
	assert.Equal(t, int32(1), started.Load())
	require.NoError(t, lateEngine{Engine: scripted{}, late: &late}.Start(), "nothing to start")
}
