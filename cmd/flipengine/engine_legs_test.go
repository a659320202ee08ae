package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/engines/othello"
)

func TestLegClocksPlanWithTheClocksFall(t *testing.T) {
	c := newLegClocks()
	req := othello.NewEngineRequest(othello.New(othello.Grand))
	req.MatchID, req.RemainingMS, req.BudgetMS = 7, 60000, 10000
	t0 := time.Unix(1000, 0)
	first := c.plan(req, t0)
	assert.Positive(t, first)
	assert.LessOrEqual(t, first, 10*time.Second, "never past budget_ms")
	c.answered(req, first, t0.Add(first))
	// Next turn of the same leg: the clock fell by the think plus 900 ms
	// spent outside the engine (a poll's delay, the other leg's request).
	req.RemainingMS -= first.Milliseconds() + 900
	second := c.plan(req, t0.Add(first+2*time.Second))
	assert.Less(t, second, first, "the time outside the engine is reserved for the moves left")
	assert.Greater(t, c.over.Estimate(), 400*time.Millisecond)
	// The clock nearly out: still a move, at once.
	req.RemainingMS = 300
	assert.Equal(t, time.Millisecond, c.plan(req, t0.Add(time.Minute)))
	// Legs not heard of for the window are forgotten.
	c.answered(req, 0, t0.Add(time.Minute))
	other := req
	other.MatchID = 8
	c.answered(other, 0, t0.Add(time.Minute+legWindow+time.Second))
	assert.Len(t, c.legs, 1)
}
