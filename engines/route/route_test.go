package route

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// fake answers its move and counts its starts and closes.
type fake struct {
	name   string
	move   int
	starts int
	closed int
}

func (f *fake) Name() string               { return f.name }
func (f *fake) Supports(othello.Mode) bool { return true }
func (f *fake) Start() error               { f.starts++; return nil }
func (f *fake) Close() error               { f.closed++; return nil }
func (f *fake) Move(context.Context, engines.Request) (engines.Result, error) {
	return engines.Result{Move: f.move}, nil
}

// plain has no Start.
type plain struct{ fake }

func (p *plain) Start() {}

func TestRoute(t *testing.T) {
	def := &plain{fake{name: "builtin", move: 1}}
	std := &fake{name: "Egaroucid", move: 2}
	r := &Engine{Default: def, ByMode: map[othello.Mode]engines.Engine{othello.Std: std},
		Off: map[othello.Mode]bool{othello.Reversi: true}}

	assert.Equal(t, "builtin; std: Egaroucid", r.Name())
	assert.True(t, r.Supports(othello.Std))
	assert.True(t, r.Supports(othello.Grand))
	assert.False(t, r.Supports(othello.Reversi), "off")

	res, err := r.Move(context.Background(), engines.Request{Position: othello.New(othello.Std)})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Move, "std: its engine")
	res, err = r.Move(context.Background(), engines.Request{Position: othello.New(othello.Grand)})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Move, "the others: the default")
	_, err = r.Move(context.Background(), engines.Request{Position: othello.Position{Mode: othello.Reversi}})
	assert.ErrorContains(t, err, "off")

	require.NoError(t, r.StartFor(othello.Std))
	require.NoError(t, r.StartFor(othello.Grand))
	assert.Equal(t, 1, std.starts, "started for its mode")

	require.NoError(t, r.Close())
	assert.Equal(t, 1, std.closed)
	assert.Zero(t, def.closed, "the default is its owner's to close")

	alone := &Engine{Default: def}
	assert.Equal(t, "builtin", alone.Name())
	require.NoError(t, alone.Close())
	assert.Zero(t, def.closed)
}
