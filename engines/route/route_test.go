package route

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// fake answers its move and counts its closes.
type fake struct {
	name   string
	move   int
	closed int
}

func (f *fake) Name() string               { return f.name }
func (f *fake) Supports(othello.Mode) bool { return true }
func (f *fake) Close() error               { f.closed++; return nil }
func (f *fake) Move(context.Context, engines.Request) (engines.Result, error) {
	return engines.Result{Move: f.move}, nil
}

// opens counts the sessions a provider opened.
type opens struct {
	engines.Provider
	n int
}

func (o *opens) Open(ctx context.Context, m engines.MatchInfo) (engines.Session, error) {
	o.n++
	return o.Provider.Open(ctx, m)
}

func TestRoute(t *testing.T) {
	def := &opens{Provider: engines.Shared(&fake{name: "builtin", move: 1})}
	std := &fake{name: "Egaroucid", move: 2}
	stdP := &opens{Provider: engines.PerMatch(func() (engines.Engine, error) { return std, nil }, nil)}
	r := &Provider{Default: def, ByMode: map[othello.Mode]engines.Provider{othello.Std: stdP},
		Off: map[othello.Mode]bool{othello.Reversi: true}}

	assert.NotContains(t, r.Modes(), othello.Reversi, "off")
	assert.Contains(t, r.Modes(), othello.Std)
	assert.Len(t, r.Modes(), len(othello.AllModes())-1)

	move := func(mode othello.Mode) (int, error) {
		s, err := r.Open(context.Background(), engines.MatchInfo{ID: 1, Mode: mode, Legs: 2})
		require.NoError(t, err)
		defer func() { require.NoError(t, s.Close()) }()
		res, err := s.Move(context.Background(), 0, engines.Request{Position: othello.New(mode)})
		return res.Move, err
	}
	mv, err := move(othello.Std)
	require.NoError(t, err)
	assert.Equal(t, 2, mv, "std: its provider")
	assert.Equal(t, 1, stdP.n, "opened once for the match")
	assert.Equal(t, 1, std.closed, "its session closed it")
	mv, err = move(othello.Grand)
	require.NoError(t, err)
	assert.Equal(t, 1, mv, "the others: the default")
	assert.Equal(t, 1, def.n)
	_, err = move(othello.Reversi)
	assert.ErrorContains(t, err, "off")
	assert.Equal(t, 1, def.n+stdP.n-1, "an off mode opens no provider")
}
