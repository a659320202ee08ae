package web

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/appliance/state"
)

func TestRunClocks(t *testing.T) {
	at := time.Unix(1_800_000_000, 0).UTC()
	st := state.Status{Report: state.Report{Matches: []state.Match{{Legs: []state.Leg{
		{Status: "active", Turn: 1, ClocksMS: [2]int64{10_000, 20_000}, ClocksAt: at},
		{Status: "finished", Turn: 2, ClocksMS: [2]int64{10_000, 20_000}, ClocksAt: at},
		{Status: "active", Turn: 2, ClocksMS: [2]int64{10_000, 1_000}, ClocksAt: at},
	}}}}}
	runClocks(&st, at.Add(2500*time.Millisecond))
	l := st.Matches[0].Legs
	assert.Equal(t, [2]int64{7_500, 20_000}, l[0].ClocksMS, "the mover's clock runs")
	assert.Equal(t, [2]int64{10_000, 20_000}, l[1].ClocksMS, "a finished leg's clocks stand")
	assert.Equal(t, [2]int64{10_000, 0}, l[2].ClocksMS, "never below zero")
}
