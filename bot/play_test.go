package bot

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// waitOnline waits until the arena counts the bot as connected (it has
// polled), so that challenges to it are allowed.
func waitOnline(t *testing.T, fs *fakeServer, br *botRun) {
	t.Helper()
	waitFor(t, 5*time.Second, "first poll", func() bool { return br.bot.Status().Bot.ID != 0 })
}

func challenge(t *testing.T, fs *fakeServer, from string, mode othello.Mode) int64 {
	t.Helper()
	var id int64
	var err error
	waitFor(t, 3*time.Second, "challenge accepted by the arena", func() bool {
		id, err = fs.arena.Challenge(from, "me", mode)
		return err == nil
	})
	return id
}

// requireCleanWin checks a match ended by discs (no time loss, no abort)
// and that no (match, leg, revision) got more than one agent_move.
func requireClean(t *testing.T, fs *fakeServer, r arena.MatchResult) {
	t.Helper()
	require.Equal(t, flipsight.MatchFinished, r.Status, "match %d", r.ID)
	require.Equal(t, flipsight.FinishDiscs, r.FinishReason, "match %d", r.ID)
	total, maxPer := fs.moveCallsFor(r.ID)
	assert.Positive(t, total)
	assert.Equal(t, 1, maxPer, "one agent_move per (match, leg, revision)")
}

func TestPlaysEveryModeAtOnce(t *testing.T) {
	t.Parallel()
	// A minute a leg: the gate below may hold the first moves for many
	// seconds on a loaded machine (the race run of the whole suite), and
	// this test is about five matches at once, not about the clock.
	fs := newFakeServer(t, serverOpts{clock: time.Minute})
	gate := make(chan struct{})
	eng := &fakeEngine{gate: gate}
	recs := &memRecorder{}
	br := startBot(t, fs, factoryOf(eng, Shared), func(o *Options, _ *flipsight.Config) { o.MaxMatches = 5; o.Records = recs })
	waitOnline(t, fs, br)
	var ids []int64
	for _, m := range othello.AllModes() {
		ids = append(ids, challenge(t, fs, "house", m))
	}
	// The engine holds its moves until all five matches are running, so
	// they overlap on a loaded machine too.
	waitFor(t, 20*time.Second, "five matches at once", func() bool { return br.maxM.Load() == 5 })
	close(gate)
	for _, id := range ids {
		requireClean(t, fs, fs.waitResult(t, id, 30*time.Second))
	}
	waitFor(t, 2*time.Second, "results in the status", func() bool { return len(br.bot.Status().Results) == 5 })
	st := br.bot.Status()
	for _, r := range st.Results {
		assert.Contains(t, []string{OutcomeWin, OutcomeLoss, OutcomeDraw}, r.Outcome)
		assert.Equal(t, "house", r.Opponent)
	}
	assert.Equal(t, "me", st.Bot.Name)
	assert.Equal(t, int32(5), br.maxM.Load(), "five matches at once")

	// Both legs of every match are recorded, in every mode, and replay to
	// the server's final boards.
	waitFor(t, 2*time.Second, "ten records", func() bool { return len(recs.all()) == 10 })
	byID := map[string]record.Game{}
	for _, g := range recs.all() {
		byID[g.ID] = g
	}
	for _, r := range st.Results {
		require.Len(t, r.Games, 2, "match %d", r.MatchID)
		m, ok := fs.arena.MatchJSON(r.MatchID)
		require.True(t, ok)
		for leg, id := range r.Games {
			g, ok := byID[id]
			require.True(t, ok, "result %d names record %s", r.MatchID, id)
			require.NoError(t, g.Check())
			assert.Equal(t, r.Mode, g.Mode)
			assert.Equal(t, leg, g.Leg)
			assert.Equal(t, r.Outcome, g.MatchResult)
			assert.Equal(t, "house", g.Opponent())
			states, err := g.Replay()
			require.NoError(t, err)
			assert.Equal(t, m.State.Legs[leg].Board, states[len(states)-1].Board(), "match %d leg %d", r.MatchID, leg)
			mine, sourced := 0, 0
			for _, mv := range g.Moves {
				if mv.Color == g.MyColor {
					mine++
					if mv.Source != "" {
						sourced++
					}
					if mv.Source == "engine" {
						assert.Equal(t, 1, mv.Depth, "the fake engine's depth")
						assert.NotNil(t, mv.Score)
					}
				}
			}
			assert.Equal(t, mine, sourced, "every move of ours says how it was found")
		}
	}
}

// memRecorder keeps records in memory.
type memRecorder struct {
	mu    sync.Mutex
	games []record.Game
}

func (r *memRecorder) Add(g record.Game) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.games = append(r.games, g)
	return nil
}

func (r *memRecorder) all() []record.Game {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]record.Game(nil), r.games...)
}

func TestTwoPairsAndAHumanMatchAtOnce(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	// The engine holds its moves until all three matches are running, so
	// they overlap on a loaded machine too.
	gate := make(chan struct{})
	br := startBot(t, fs, factoryOf(&fakeEngine{gate: gate}, PerMatch), func(o *Options, _ *flipsight.Config) { o.MaxMatches = 3 })
	waitOnline(t, fs, br)
	a := challenge(t, fs, "house", othello.Std)
	b := challenge(t, fs, "house", othello.Grand)
	h, err := fs.arena.CreateHuman(arena.HumanOptions{Bot: "me", Mode: othello.Std, XOT: true, Clock: 20 * time.Second})
	require.NoError(t, err)
	require.Negative(t, h)
	waitFor(t, 20*time.Second, "three matches at once", func() bool { return br.maxM.Load() == 3 })
	close(gate)
	for _, id := range []int64{a, b, h} {
		requireClean(t, fs, fs.waitResult(t, id, 30*time.Second))
	}
	assert.Equal(t, int32(3), br.maxM.Load())
}

func TestMaxMatchesReservesSlots(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, _ *flipsight.Config) { o.MaxMatches = 1 })
	waitOnline(t, fs, br)
	var ids []int64
	for i := 0; i < 2; i++ {
		ids = append(ids, challenge(t, fs, "house", othello.Std))
	}
	for _, id := range ids {
		requireClean(t, fs, fs.waitResult(t, id, 40*time.Second))
	}
	assert.Equal(t, int32(1), br.maxM.Load(), "never more than one match at once")
}

func TestRejectsUnsupportedMode(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	eng := &fakeEngine{modes: []othello.Mode{othello.Std}}
	br := startBot(t, fs, factoryOf(eng, Shared), nil)
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Grand)
	r := fs.waitResult(t, id, 5*time.Second)
	assert.Equal(t, flipsight.MatchRejected, r.Status)
	assert.Zero(t, eng.calls.Load())
}

func TestNoStreamPollsOnly(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, _ *flipsight.Config) { o.NoStream = true })
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Std)
	playedOn(t, fs, id, 16)
	assert.Zero(t, fs.front.Streams(), "no stream opened")
	assert.Equal(t, StatePolling, br.bot.Status().State)
}

func TestOnceMatch(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	// A first bot run makes "me" known to the arena; the challenges are
	// made while no bot runs, so the once-match bot finds both pending.
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), nil)
	waitOnline(t, fs, br)
	br.stop()
	_, ok := br.wait(5 * time.Second)
	require.True(t, ok)
	id := challenge(t, fs, "house", othello.Std)
	other := challenge(t, fs, "house", othello.Anti)
	br2 := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, _ *flipsight.Config) { o.OnceMatch = id })
	err, ok := br2.wait(30 * time.Second)
	require.True(t, ok, "--once-match did not return after its match")
	require.NoError(t, err)
	requireClean(t, fs, fs.waitResult(t, id, time.Second))
	m, ok := fs.arena.MatchJSON(other)
	require.True(t, ok)
	assert.Equal(t, flipsight.MatchPending, m.Status, "the other challenge was left alone")
}

func TestBadToken(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	bad, _ := flipsight.NewToken("fsbm_WRONG")
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(_ *Options, c *flipsight.Config) { c.Token = bad })
	err, ok := br.wait(5 * time.Second)
	require.True(t, ok, "a rejected token did not stop the bot")
	require.Error(t, err)
	assert.True(t, flipsight.IsAuth(err))
	assert.NotContains(t, err.Error(), "WRONG")
	assert.Equal(t, StateTokenRejected, br.bot.Status().State)
}

func TestStopIsPrompt(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	eng := &fakeEngine{behave: "slow", delay: 300 * time.Millisecond}
	br := startBot(t, fs, factoryOf(eng, Shared), nil)
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Std)
	waitFor(t, 5*time.Second, "a search in flight", func() bool { return eng.calls.Load() > 0 })
	callsBefore, _ := fs.moveCallsFor(id)
	br.stop()
	err, ok := br.wait(5 * time.Second)
	require.True(t, ok, "bot did not stop")
	require.NoError(t, err)
	calls, _ := fs.moveCallsFor(id)
	assert.Greater(t, calls, callsBefore, "the move in flight was sent before stopping")
	assert.Equal(t, StateStopped, br.bot.Status().State)
}

func TestResumeAfterRestart(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	eng := &fakeEngine{}
	br := startBot(t, fs, factoryOf(eng, Shared), nil)
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Std)
	waitFor(t, 5*time.Second, "a few moves", func() bool { n, _ := fs.moveCallsFor(id); return n >= 4 })
	br.stop()
	_, ok := br.wait(5 * time.Second)
	require.True(t, ok)
	startBot(t, fs, factoryOf(&fakeEngine{}, Shared), nil)
	playedOn(t, fs, id, 8)
}

func TestStatusShowsLegs(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	eng := &fakeEngine{behave: "slow", delay: 200 * time.Millisecond}
	br := startBot(t, fs, factoryOf(eng, Shared), nil)
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Grand)
	waitFor(t, 5*time.Second, "a running match in the status", func() bool {
		st := br.bot.Status()
		return len(st.Matches) == 1 && len(st.Matches[0].Legs) == 2
	})
	st := br.bot.Status()
	m := st.Matches[0]
	assert.Equal(t, id, m.ID)
	assert.Equal(t, "grand", m.Mode)
	assert.Equal(t, 1, m.Participant)
	for _, l := range m.Legs {
		assert.Len(t, l.Board, 100)
		assert.Equal(t, 10, l.BoardSize)
		assert.Positive(t, l.ClocksMS[0])
		assert.LessOrEqual(t, l.ClocksMS[0], int64(20000))
	}
	assert.NotEqual(t, m.Legs[0].MyColor, m.Legs[1].MyColor, "colours swap between legs")
	waitFor(t, 5*time.Second, "a move in the status", func() bool {
		st := br.bot.Status()
		return len(st.Matches) == 1 && len(st.Matches[0].Legs) == 2 &&
			(st.Matches[0].Legs[0].LastSearch.Source != "" || st.Matches[0].Legs[1].LastSearch.Source != "")
	})
}

func TestHumanMatchFollowsStreamEvents(t *testing.T) {
	t.Parallel()
	// Human match events carry only the id: each one must trigger a poll
	// as soon as the spec's once-a-second rule allows — not at the next
	// periodic poll (10 s here), which would lose the leg on time.
	fs := newFakeServer(t, serverOpts{})
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, _ *flipsight.Config) {
		o.Timing.PollStream = 10 * time.Second
		o.Timing.MinPollGap = time.Second
	})
	waitFor(t, 5*time.Second, "online", func() bool { return br.bot.Status().State == StateOnline })
	h, err := fs.arena.CreateHuman(arena.HumanOptions{Bot: "me", Mode: othello.Std, Clock: 20 * time.Second})
	require.NoError(t, err)
	// Ten moves cost the bot at most a second each of its 20 s clock;
	// waiting for the periodic poll would cost ten each.
	waitFor(t, 20*time.Second, "ten moves", func() bool {
		n, _ := fs.moveCallsFor(h)
		if r, ok := fs.arena.Result(h); ok && r.Ended {
			return true
		}
		return n >= 10
	})
	r, _ := fs.arena.Result(h)
	require.NotEqual(t, flipsight.FinishTimeout, r.FinishReason)
	m, ok := fs.arena.MatchJSON(h)
	require.True(t, ok)
	for _, l := range m.State.Legs {
		require.NotEqual(t, flipsight.LegTimeout, l.Status)
	}
}

func TestServerUnreachableIsNetworkDown(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	url := fs.apiURL()
	fs.srv.Close() // nothing listens there any more
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(_ *Options, c *flipsight.Config) { c.APIURL = url })
	waitFor(t, 5*time.Second, "a network failure in the status", func() bool { return br.bot.Status().NetworkDown })
	st := br.bot.Status()
	assert.Equal(t, StateConnecting, st.State)
	assert.Contains(t, st.LastError, "connect")
}

func TestEnvironmentReported(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	f := factoryOf(&fakeEngine{}, Shared)
	f.Practice = true
	br := startBot(t, fs, f, nil)
	waitOnline(t, fs, br)
	tok, _ := flipsight.NewToken(myToken)
	c, err := flipsight.NewClient(flipsight.Config{APIURL: fs.apiURL(), Token: tok})
	require.NoError(t, err)
	resp, err := c.Poll(context.Background(), nil)
	require.NoError(t, err)
	require.NotNil(t, resp.Bot.Environment)
	env := resp.Bot.Environment
	assert.Equal(t, "test cpu", env.CPU)
	assert.Equal(t, "fake", env.Engine)
	assert.NotEmpty(t, env.OS)
	assert.True(t, env.Practice)
}

// TestEnvironmentSaysWhatPlays: with Describe, environment.engine follows
// what really plays (an engine busy or refused has its stand-in named), at
// every poll, not the name the bot started with.
func TestEnvironmentSaysWhatPlays(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	f := factoryOf(&fakeEngine{}, Shared)
	var now atomic.Value
	now.Store("fake; std: Egaroucid")
	f.Describe = func() string { return now.Load().(string) }
	br := startBot(t, fs, f, nil)
	waitOnline(t, fs, br)
	tok, _ := flipsight.NewToken(myToken)
	c, err := flipsight.NewClient(flipsight.Config{APIURL: fs.apiURL(), Token: tok})
	require.NoError(t, err)
	reported := func() string {
		resp, err := c.Poll(context.Background(), nil)
		require.NoError(t, err)
		require.NotNil(t, resp.Bot.Environment)
		return resp.Bot.Environment.Engine
	}
	waitFor(t, 5*time.Second, "the described engine", func() bool { return reported() == "fake; std: Egaroucid" })
	now.Store("fake; std: built-in while Egaroucid is busy")
	waitFor(t, 5*time.Second, "the new description at the next poll", func() bool {
		return reported() == "fake; std: built-in while Egaroucid is busy"
	})
}
