package bot

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// countingProvider counts, per match, the sessions its provider opened
// and the closes of each.
type countingProvider struct {
	p      engines.Provider
	mu     sync.Mutex
	opens  map[int64]int
	closes map[int64]int
	infos  map[int64]engines.MatchInfo
}

func newCountingProvider(p engines.Provider) *countingProvider {
	return &countingProvider{p: p, opens: map[int64]int{}, closes: map[int64]int{}, infos: map[int64]engines.MatchInfo{}}
}

func (c *countingProvider) Open(ctx context.Context, m engines.MatchInfo) (engines.Session, error) {
	s, err := c.p.Open(ctx, m)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opens[m.ID]++
	c.infos[m.ID] = m
	return &countedSession{Session: s, c: c, id: m.ID}, nil
}

func (c *countingProvider) counts(id int64) (opens, closes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opens[id], c.closes[id]
}

type countedSession struct {
	engines.Session
	c  *countingProvider
	id int64
}

func (s *countedSession) Close() error {
	s.c.mu.Lock()
	s.c.closes[s.id]++
	s.c.mu.Unlock()
	return s.Session.Close()
}

// TestSessionPerMatchSurvivesAFailedLeg: a match's engines are opened once,
// when it is accepted, knowing the match, and closed once, when it ends;
// the leg whose engine failed gets a replacement inside the session, the
// other leg keeps its engine and its turns.
func TestSessionPerMatchSurvivesAFailedLeg(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{clock: time.Minute})
	var made atomic.Int32
	var first *fakeEngine
	newEngine := func() (engines.Engine, error) {
		e := &fakeEngine{}
		if made.Add(1) == 1 {
			e.behave = "error" // the first leg's first engine crashes
			first = e
		}
		return e, nil
	}
	cp := newCountingProvider(providerOf(PerLeg, newEngine))
	br := startBot(t, fs, Engines{Name: "fake", Provider: cp}, nil)
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Std)
	waitFor(t, 10*time.Second, "the match's engines opened", func() bool { o, _ := cp.counts(id); return o == 1 })
	requireClean(t, fs, fs.waitResult(t, id, 60*time.Second))
	waitFor(t, 5*time.Second, "the match's engines closed", func() bool { _, c := cp.counts(id); return c == 1 })
	opens, closes := cp.counts(id)
	assert.Equal(t, 1, opens, "opened once")
	assert.Equal(t, 1, closes, "closed once")
	assert.Equal(t, engines.MatchInfo{ID: id, Mode: othello.Std, Legs: 2}, cp.infos[id], "knowing its match")
	assert.Equal(t, int32(3), made.Load(), "two legs and one replacement")
	assert.Equal(t, int32(1), first.calls.Load(), "the failed engine was asked once, then replaced")
	assert.Equal(t, int32(1), first.closed.Load(), "and closed")
	br.stop()
	_, ok := br.wait(10 * time.Second)
	require.True(t, ok)
	_, closes = cp.counts(id)
	assert.Equal(t, 1, closes, "not closed again when Run ends")
}

// TestSessionClosedOnceOnStop: a match abandoned by a stop (no drain, or
// Bot.Stop during the drain) has its engines closed once, when Run ends.
func TestSessionClosedOnceOnStop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		drain time.Duration
		now   bool
	}{{"no drain", -1, false}, {"stop during the drain", time.Minute, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, serverOpts{clock: 30 * time.Second})
			eng := &fakeEngine{behave: "slow", delay: 100 * time.Millisecond}
			cp := newCountingProvider(engines.Shared(eng))
			br := startBot(t, fs, Engines{Name: "fake", Provider: cp}, func(o *Options, _ *flipsight.Config) { o.Drain = tc.drain })
			waitOnline(t, fs, br)
			id := challenge(t, fs, "house", othello.Std)
			waitFor(t, 10*time.Second, "moves played", func() bool { n, _ := fs.moveCallsFor(id); return n >= 2 })
			br.stop()
			if tc.now {
				br.bot.Stop()
			}
			_, ok := br.wait(10 * time.Second)
			require.True(t, ok)
			opens, closes := cp.counts(id)
			assert.Equal(t, 1, opens)
			assert.Equal(t, 1, closes, "closed once, when Run ended")
			assert.Zero(t, eng.closed.Load(), "a shared engine is its owner's to close")
		})
	}
}

// TestSessionClosedWhenTheDrainEnds: a match played out in the drain has
// its engines closed once, at its end.
func TestSessionClosedWhenTheDrainEnds(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{clock: 30 * time.Second})
	cp := newCountingProvider(providerOf(PerMatch, func() (engines.Engine, error) { return &fakeEngine{}, nil }))
	br := startBot(t, fs, Engines{Name: "fake", Provider: cp}, func(o *Options, _ *flipsight.Config) { o.Drain = time.Minute })
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Std)
	waitFor(t, 10*time.Second, "moves played", func() bool { n, _ := fs.moveCallsFor(id); return n >= 2 })
	br.stop()
	_, ok := br.wait(60 * time.Second)
	require.True(t, ok, "the drain played the match out")
	requireClean(t, fs, fs.waitResult(t, id, time.Second))
	opens, closes := cp.counts(id)
	assert.Equal(t, 1, opens)
	assert.Equal(t, 1, closes)
}
