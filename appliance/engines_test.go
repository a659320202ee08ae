package appliance

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
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
	f, pool := botPlayer{cfg: botPlayerConfig{}}.engineFactory(builtin, s)
	require.Nil(t, pool, "no Egaroucid")

	assert.Contains(t, f.Modes, othello.Std)
	assert.Contains(t, f.Modes, othello.Octagon)
	assert.NotContains(t, f.Modes, othello.Reversi, "off in the settings: the bot rejects it")

	move := func(mode othello.Mode) (int, error) {
		m, err := f.Provider.Open(context.Background(), engines.MatchInfo{ID: 1, Mode: mode, Legs: 2})
		require.NoError(t, err)
		defer func() { require.NoError(t, m.Close()) }()
		r, err := m.Move(context.Background(), 0, engines.Request{Position: othello.Position{Mode: mode}})
		return r.Move, err
	}
	mv, err := move(othello.Grand)
	require.NoError(t, err)
	assert.Equal(t, len("builtin"), mv, "the built-in engine plays")
	_, err = move(othello.Reversi)
	assert.Error(t, err)

	assert.Equal(t, 0, builtin.closed, "the shared built-in engine is not closed with a match")
	assert.Equal(t, "builtin", f.Name)
}
