package bot

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// ponderingEngine is a fakeEngine that ponders: it records every Ponder
// call and checks that no move of a leg is asked while that leg's ponder
// still runs.
type ponderingEngine struct {
	fakeEngine
	t *testing.T

	mu       sync.Mutex
	active   map[int]context.Context // leg → the running ponder's context
	requests []engines.PonderRequest
	running  int
	overlaps int // moves asked while their leg's ponder had not been cancelled
}

func (e *ponderingEngine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	e.mu.Lock()
	if pc, ok := e.active[req.Leg]; ok && pc.Err() == nil {
		e.overlaps++
	}
	e.mu.Unlock()
	res, err := e.fakeEngine.Move(ctx, req)
	if err == nil && res.Move != othello.Pass {
		// A principal variation with the opponent's expected reply.
		res.PV = []int{res.Move}
		if next, err := req.Position.Play(res.Move); err == nil {
			if legal := next.LegalMoves(); len(legal) > 0 {
				res.PV = append(res.PV, legal[0])
			}
		}
	}
	return res, err
}

func (e *ponderingEngine) Ponder(ctx context.Context, req engines.PonderRequest) error {
	e.mu.Lock()
	e.requests = append(e.requests, req)
	e.active[req.Leg] = ctx
	e.running++
	e.mu.Unlock()
	<-ctx.Done()
	e.mu.Lock()
	e.running--
	e.mu.Unlock()
	return nil
}

func (e *ponderingEngine) snapshot() (requests []engines.PonderRequest, running, overlaps int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]engines.PonderRequest(nil), e.requests...), e.running, e.overlaps
}

// The bot ponders after its moves with an engine that can, on the position
// the opponent is to move in, with the rest of the engine's principal
// variation; each ponder is cancelled before the leg's next move is asked,
// and none outlives the bot.
func TestPondersOnTheOpponentsTime(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{modes: []othello.Mode{othello.Std}, oppLevel: 5})
	eng := &ponderingEngine{t: t, active: map[int]context.Context{}}
	br := startBot(t, fs, Engines{Name: "pondering", Provider: engines.Shared(eng)},
		func(o *Options, _ *flipsight.Config) { o.Ponder = true })
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Std)
	requireClean(t, fs, fs.waitResult(t, id, 60*time.Second))
	waitFor(t, 5*time.Second, "every ponder cancelled", func() bool {
		_, running, _ := eng.snapshot()
		return running == 0
	})
	requests, _, overlaps := eng.snapshot()
	require.NotEmpty(t, requests, "the bot pondered")
	assert.Zero(t, overlaps, "no move asked while its leg's ponder ran")
	for _, r := range requests {
		assert.False(t, r.Position.GameOver())
		if len(r.Expected) > 0 {
			assert.True(t, r.Position.Legal().Has(r.Expected[0]), "the expected reply is the opponent's")
		}
	}
	br.stop()
	_, ok := br.wait(10 * time.Second)
	require.True(t, ok)
	_, running, _ := eng.snapshot()
	assert.Zero(t, running, "no ponder outlives the bot")
}

// With Options.Ponder off the engine is never asked to ponder.
func TestNoPonderWhenOff(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{modes: []othello.Mode{othello.Std}, oppLevel: 5})
	eng := &ponderingEngine{t: t, active: map[int]context.Context{}}
	br := startBot(t, fs, Engines{Name: "pondering", Provider: engines.Shared(eng)}, nil)
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Std)
	requireClean(t, fs, fs.waitResult(t, id, 60*time.Second))
	requests, _, _ := eng.snapshot()
	assert.Empty(t, requests)
}
