package appliance

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/route"
)

type namedEngine struct {
	name   string
	modes  []othello.Mode
	closed int
}

func (e *namedEngine) Name() string { return e.name }
func (e *namedEngine) Supports(m othello.Mode) bool {
	for _, x := range e.modes {
		if x == m {
			return true
		}
	}
	return false
}
func (e *namedEngine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	return engines.Result{Move: len(e.name)}, nil
}
func (e *namedEngine) Close() error { e.closed++; return nil }

func TestModeEngine(t *testing.T) {
	builtin := &namedEngine{name: "builtin", modes: othello.AllModes()}
	s := settings.Default()
	s.Engines["reversi"] = settings.EngineOff
	m := &route.Engine{Default: builtin, Off: offModes(s)}

	assert.True(t, m.Supports(othello.Std))
	assert.True(t, m.Supports(othello.Octagon))
	assert.False(t, m.Supports(othello.Reversi), "off in the settings: the bot rejects it")

	r, err := m.Move(context.Background(), engines.Request{Position: othello.Position{Mode: othello.Grand}})
	require.NoError(t, err)
	assert.Equal(t, len("builtin"), r.Move, "the built-in engine plays")
	_, err = m.Move(context.Background(), engines.Request{Position: othello.Position{Mode: othello.Reversi}})
	assert.Error(t, err)

	require.NoError(t, m.Close())
	assert.Equal(t, 0, builtin.closed, "the shared built-in engine is not closed with a match")
	assert.Equal(t, "builtin", m.Name())
}
