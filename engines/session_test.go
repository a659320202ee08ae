package engines

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// testEngine counts its starts, moves and closes; fail makes its moves
// fail.
type testEngine struct {
	id     int
	fail   atomic.Bool
	starts atomic.Int32
	moves  atomic.Int32
	closed atomic.Int32
}

func (e *testEngine) Name() string               { return "test" }
func (e *testEngine) Supports(othello.Mode) bool { return true }
func (e *testEngine) Start() error               { e.starts.Add(1); return nil }
func (e *testEngine) Close() error               { e.closed.Add(1); return nil }
func (e *testEngine) Move(context.Context, Request) (Result, error) {
	e.moves.Add(1)
	if e.fail.Load() {
		return Result{}, errors.New("crashed")
	}
	return Result{Move: e.id}, nil
}

// maker makes testEngines, numbered from 1.
type maker struct {
	mu   sync.Mutex
	made []*testEngine
}

func (m *maker) New() (Engine, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := &testEngine{id: len(m.made) + 1}
	m.made = append(m.made, e)
	return e, nil
}

func (m *maker) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.made)
}

func (m *maker) get(i int) *testEngine {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.made[i]
}

func moveOf(t *testing.T, s Session, leg int) int {
	t.Helper()
	res, err := s.Move(context.Background(), leg, Request{})
	require.NoError(t, err)
	return res.Move
}

func TestProvidersMakeTheirEngines(t *testing.T) {
	for _, tc := range []struct {
		name      string
		provider  func(*maker) Provider
		instances int // for 2 matches × 2 legs
	}{
		{"shared", func(m *maker) Provider { e, _ := m.New(); return Shared(e) }, 1},
		{"per match", func(m *maker) Provider { return PerMatch(m.New, nil) }, 2},
		{"per leg", func(m *maker) Provider { return PerLeg(NewPool(PoolConfig{New: m.New})) }, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &maker{}
			p := tc.provider(m)
			var sessions []Session
			for _, id := range []int64{1, 2} {
				s, err := p.Open(context.Background(), MatchInfo{ID: id, Mode: othello.Std, Legs: 2})
				require.NoError(t, err)
				for leg := range 2 {
					assert.Equal(t, moveOf(t, s, leg), moveOf(t, s, leg), "a leg keeps its engine")
				}
				sessions = append(sessions, s)
			}
			assert.Equal(t, tc.instances, m.count())
			for _, s := range sessions {
				require.NoError(t, s.Close())
				require.NoError(t, s.Close(), "a second close does nothing")
			}
			_, err := sessions[0].Move(context.Background(), 0, Request{})
			assert.ErrorIs(t, err, ErrSessionClosed)
		})
	}
}

func TestPerMatchClosesItsEngineOnce(t *testing.T) {
	m := &maker{}
	s, err := PerMatch(m.New, nil).Open(context.Background(), MatchInfo{ID: 3, Legs: 2})
	require.NoError(t, err)
	require.Equal(t, 1, m.count(), "made when the match is opened")
	require.Eventually(t, func() bool { return m.get(0).starts.Load() == 1 }, 5*time.Second, time.Millisecond, "and started")
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	assert.Equal(t, int32(1), m.get(0).closed.Load())
}

func TestPerLegStartsAheadAndKeepsWarm(t *testing.T) {
	m := &maker{}
	pool := NewPool(PoolConfig{New: m.New, Keep: 2})
	p := PerLeg(pool)
	s, err := p.Open(context.Background(), MatchInfo{ID: 7, Mode: othello.Std, Legs: 2})
	require.NoError(t, err)
	require.Equal(t, 2, m.count(), "both legs' engines are made when the match is opened")
	require.Eventually(t, func() bool { return m.get(0).starts.Load() == 1 && m.get(1).starts.Load() == 1 },
		5*time.Second, time.Millisecond, "and started")
	require.NoError(t, s.Close())
	for i := range 2 {
		assert.Zero(t, m.get(i).closed.Load(), "kept warm for the next match")
	}
	s, err = p.Open(context.Background(), MatchInfo{ID: 8, Mode: othello.Std, Human: true, Legs: 1})
	require.NoError(t, err)
	assert.Equal(t, 2, m.count(), "the next match takes a warm engine")
	assert.Contains(t, []int{1, 2}, moveOf(t, s, 0))
	require.NoError(t, s.Close())
	require.NoError(t, pool.Close())
	for i := range 2 {
		assert.Equal(t, int32(1), m.get(i).closed.Load(), "closed with the pool, warm or not")
	}
}

func TestPoolIsBounded(t *testing.T) {
	m := &maker{}
	pool := NewPool(PoolConfig{New: m.New, Max: 4, Keep: 3})
	a, err := pool.Take(2)
	require.NoError(t, err)
	b, err := pool.Take(2)
	require.NoError(t, err)
	_, err = pool.Take(1)
	assert.ErrorIs(t, err, ErrPoolFull, "no more than Max at once")
	pool.Put(a[0])
	_, err = pool.Take(2)
	assert.ErrorIs(t, err, ErrPoolFull, "a pair or nothing")
	for _, e := range append(b, a[1]) {
		pool.Put(e)
	}
	live, warm := pool.Counts()
	assert.Equal(t, 3, live, "one closed: only Keep kept warm")
	assert.Equal(t, 3, warm)
	c, err := pool.Take(3)
	require.NoError(t, err)
	assert.Equal(t, 4, m.count(), "the warm ones are reused across matches")
	pool.Drop(c[0])
	assert.Equal(t, int32(1), c[0].(*testEngine).closed.Load(), "a dropped engine is closed")
	live, _ = pool.Counts()
	assert.Equal(t, 2, live, "and its slot freed")
	require.NoError(t, pool.Close())
	pool.Put(c[1])
	assert.Equal(t, int32(1), c[1].(*testEngine).closed.Load(), "closed once: by the pool's close, not again when given back")
	_, err = pool.Take(1)
	assert.ErrorIs(t, err, ErrPoolFull, "a closed pool gives nothing")
}

func TestPoolPrewarmsTheFirstMatch(t *testing.T) {
	m := &maker{}
	pool := NewPool(PoolConfig{New: m.New, Keep: 4})
	p := PerLeg(pool)
	p.(Prewarmer).Prewarm()
	require.Equal(t, 2, m.count(), "two legs' engines made before any match")
	require.Eventually(t, func() bool { return m.get(0).starts.Load() == 1 && m.get(1).starts.Load() == 1 },
		5*time.Second, time.Millisecond, "and started")
	s, err := p.Open(context.Background(), MatchInfo{ID: 9, Mode: othello.Std, Legs: 2})
	require.NoError(t, err)
	assert.Equal(t, 2, m.count(), "the first match takes them: nothing new to make")
	require.NoError(t, s.Close())
	require.NoError(t, pool.Close())
	for i := range 2 {
		assert.Equal(t, int32(1), m.get(i).closed.Load())
	}
	_, ok := PerMatch(m.New, nil).(Prewarmer)
	assert.False(t, ok, "per-match engines are not made ahead")
}

func TestReplaceOffTheMove(t *testing.T) {
	m := &maker{}
	pool := NewPool(PoolConfig{New: m.New})
	s, err := PerLeg(pool).Open(context.Background(), MatchInfo{ID: 3, Legs: 2})
	require.NoError(t, err)
	require.Equal(t, 2, m.count())
	old := m.get(1)
	old.fail.Store(true)
	_, err = s.Move(context.Background(), 1, Request{})
	require.Error(t, err)
	s.Replace(1)
	require.Equal(t, 3, m.count(), "the replacement is made at once")
	require.Eventually(t, func() bool { return m.get(2).starts.Load() == 1 && old.closed.Load() == 1 },
		5*time.Second, time.Millisecond, "started (and the old one closed) in the background, before the next move")
	assert.Equal(t, 3, moveOf(t, s, 1), "the next move takes the replacement")
	assert.Equal(t, 1, moveOf(t, s, 0), "the other leg keeps its engine")
	s.Replace(0)
	s.Replace(0)
	assert.Equal(t, 4, m.count(), "a second replace of the same engine replaces nothing")
	require.NoError(t, s.Close())
	s.Replace(1)
	assert.Equal(t, 4, m.count(), "nothing replaced once the session is closed")
	require.NoError(t, pool.Close())
	for i := range 4 {
		assert.Equal(t, int32(1), m.get(i).closed.Load(), "engine %d closed exactly once", i+1)
	}
}

// blockingEngine 1 fails its first move once released; the others answer.
type blockingEngine struct {
	testEngine
	release chan struct{}
}

func (e *blockingEngine) Move(ctx context.Context, req Request) (Result, error) {
	if e.moves.Add(1) == 1 && e.id == 1 {
		<-e.release
		return Result{}, errors.New("killed")
	}
	return Result{Move: e.id}, nil
}

// TestSharedEngineReplacedUnderARequest: the match's other leg had the
// engine both legs share replaced while this leg's request waited on it:
// the request goes to the replacement, and the close waits for the asks.
func TestSharedEngineReplacedUnderARequest(t *testing.T) {
	var made []*blockingEngine
	newEngine := func() (Engine, error) {
		e := &blockingEngine{testEngine: testEngine{id: len(made) + 1}, release: make(chan struct{})}
		made = append(made, e)
		return e, nil
	}
	s, err := PerMatch(newEngine, nil).Open(context.Background(), MatchInfo{ID: 4, Legs: 2})
	require.NoError(t, err)
	first := made[0]
	done := make(chan Result)
	go func() {
		res, err := s.Move(context.Background(), 0, Request{})
		assert.NoError(t, err)
		done <- res
	}()
	require.Eventually(t, func() bool { return first.moves.Load() == 1 }, 5*time.Second, time.Millisecond)
	// Leg 1 was last asked the same engine, which it replaces.
	s.(*session).mu.Lock()
	s.(*session).last[1] = first
	s.(*session).mu.Unlock()
	s.Replace(1)
	assert.Zero(t, first.closed.Load(), "not closed under the request")
	close(first.release)
	res := <-done
	assert.Equal(t, 2, res.Move, "answered by the replacement")
	require.NoError(t, s.Close())
	assert.Equal(t, int32(1), first.closed.Load())
	assert.Equal(t, int32(1), made[1].closed.Load())
}
