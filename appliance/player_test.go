package appliance

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

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
