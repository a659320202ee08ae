package appliance

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

func TestRunClocks(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
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

// The appliance's built-in engine plays, per mode, the evaluation measured
// stronger (eval.Best: today trained in every mode), as flipbot does by
// default (it once used search.New's default, the hand-made one, everywhere).
func TestBuiltinEngineUsesTheStrongerEvaluation(t *testing.T) {
	o := builtinOptions(settings.Settings{Threads: 1, HashMB: 1}, builtinEvals(slog.New(slog.DiscardHandler)))
	require.NotNil(t, o.Eval8)
	require.NotNil(t, o.Eval10)
	for _, m := range othello.AllModes() {
		var ev any = o.Eval8(m)
		if m.Size() == 10 {
			ev = o.Eval10(m)
		}
		_, trained := ev.(*eval.Pattern)
		assert.Equal(t, eval.TrainedIsStronger(m), trained, "%s: trained evaluation", m)
	}
	assert.Equal(t, 1, o.Threads)
	assert.Equal(t, 1, o.HashMB)
}
