package bot

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// A stop request (Ctrl-C, SIGTERM: Run's context cancelled) in the middle
// of a match plays it to its end, writes its records before Run returns,
// and accepts nothing new meanwhile.
func TestStopPlaysTheRunningMatchToItsEnd(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	recs := &memRecorder{}
	eng := &fakeEngine{behave: "slow", delay: 20 * time.Millisecond}
	br := startBot(t, fs, factoryOf(eng, Shared), func(o *Options, _ *flipsight.Config) {
		o.Drain = time.Minute
		o.Records = recs
		o.QuitHint = "stop again"
	})
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Std)
	waitFor(t, 10*time.Second, "moves played", func() bool { n, _ := fs.moveCallsFor(id); return n >= 2 })
	br.stop()
	waitFor(t, 5*time.Second, "the stop logged", func() bool {
		return br.bot.Status().State == StateStopping
	})
	later := challenge(t, fs, "house", othello.Std)

	_, ok := br.wait(90 * time.Second)
	require.True(t, ok, "Run did not return after the match")
	r, ok := fs.arena.Result(id)
	require.True(t, ok)
	requireFinishedByDiscs(t, r) // ended before Run returned
	// The records are written before Run returns.
	var legs []int
	for _, g := range recs.all() {
		if g.MatchID == id {
			legs = append(legs, g.Leg)
		}
	}
	assert.ElementsMatch(t, []int{0, 1}, legs, "both legs recorded before Run returned")
	// Nothing new was accepted while draining.
	m, ok := fs.arena.MatchJSON(later)
	require.True(t, ok)
	assert.Equal(t, flipsight.MatchPending, m.Status, "a challenge made during the drain was not accepted")
	logs := br.logs.String()
	assert.Contains(t, logs, "playing the running matches to their end")
	assert.Contains(t, logs, "matches=1")
	assert.Contains(t, logs, `quit_now="stop again"`)
	assert.Contains(t, logs, "the running matches have ended")
}

// A second stop (Bot.Stop: the second signal) during the drain finishes
// the moves in flight and returns at once, the match abandoned.
func TestSecondStopQuitsAtOnce(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{clock: 30 * time.Second})
	eng := &fakeEngine{behave: "slow", delay: 300 * time.Millisecond}
	br := startBot(t, fs, factoryOf(eng, Shared), func(o *Options, _ *flipsight.Config) { o.Drain = time.Minute })
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Std)
	waitFor(t, 10*time.Second, "moves played", func() bool { n, _ := fs.moveCallsFor(id); return n >= 1 })
	br.stop()
	_, ok := br.wait(time.Second)
	require.False(t, ok, "the first stop should play the match on")
	br.bot.Stop()
	err, ok := br.wait(5 * time.Second)
	require.True(t, ok, "the second stop did not end Run promptly")
	require.NoError(t, err)
	if r, ok := fs.arena.Result(id); ok {
		assert.Equal(t, flipsight.MatchRunning, r.Status, "the match was abandoned, not played out")
	}
	assert.Contains(t, br.logs.String(), "stop now: finishing the moves in flight")
}

// The drain is bounded: a match longer than Options.Drain is abandoned.
func TestDrainOfMatchesIsBounded(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{clock: 30 * time.Second})
	eng := &fakeEngine{behave: "slow", delay: 300 * time.Millisecond}
	br := startBot(t, fs, factoryOf(eng, Shared), func(o *Options, _ *flipsight.Config) { o.Drain = 500 * time.Millisecond })
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Std)
	waitFor(t, 10*time.Second, "moves played", func() bool { n, _ := fs.moveCallsFor(id); return n >= 1 })
	br.stop()
	err, ok := br.wait(10 * time.Second)
	require.True(t, ok, "the drain did not end")
	require.NoError(t, err)
	assert.Contains(t, br.logs.String(), "did not end within the drain")
}

// With no match running, a stop returns at once, whatever the drain.
func TestStopWithoutMatchIsImmediate(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, _ *flipsight.Config) { o.Drain = time.Hour })
	waitOnline(t, fs, br)
	br.stop()
	err, ok := br.wait(5 * time.Second)
	require.True(t, ok)
	require.NoError(t, err)
}

// A stop during a human room's round plays that round to its end, records
// it, and starts no new round: the bot returns once the round is over.
func TestStopPlaysTheHumanRoundButNoNewOne(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	recs := &memRecorder{}
	eng := &fakeEngine{behave: "slow", delay: 30 * time.Millisecond}
	br := startBot(t, fs, factoryOf(eng, Shared), func(o *Options, _ *flipsight.Config) {
		o.Drain = time.Minute
		o.Records = recs
	})
	waitOnline(t, fs, br)
	h, err := fs.arena.CreateHuman(arena.HumanOptions{Bot: "me", Mode: othello.Std, Clock: 20 * time.Second,
		Rounds: 3, RoundGap: 200 * time.Millisecond})
	require.NoError(t, err)
	waitFor(t, 10*time.Second, "moves played", func() bool { n, _ := fs.moveCallsFor(h); return n >= 2 })
	br.stop()
	_, ok := br.wait(40 * time.Second)
	require.True(t, ok, "Run did not return after the round")
	m, ok := fs.arena.MatchJSON(h)
	require.True(t, ok)
	require.NotNil(t, m.RoundNo)
	assert.LessOrEqual(t, *m.RoundNo, int64(2), "no round after the next one was waited for")
	var rounds []int64
	for _, g := range recs.all() {
		if g.MatchID == h {
			rounds = append(rounds, g.Round)
		}
	}
	assert.Equal(t, []int64{1}, rounds, "the round played when the stop came is recorded, once")
	// The arena shows the round finished before the next starts: the next
	// one is a running match the draining bot does not take up.
	assert.NotContains(t, br.logs.String(), `msg="new round in the human match"`)
	assert.NotContains(t, br.logs.String(), `msg="playing match"`)
}

// A human room that goes straight to its next round (no finished view of
// the last one seen) while the bot drains: the round played is recorded,
// the new one is not taken up.
func TestDrainingBotStartsNoNewHumanRound(t *testing.T) {
	tok, err := flipsight.NewToken("fsbm_rounds")
	require.NoError(t, err)
	c, err := flipsight.NewClient(flipsight.Config{APIURL: "http://127.0.0.1:1/api", Token: tok})
	require.NoError(t, err)
	recs := &memRecorder{}
	b, err := New(Options{Client: c, Engine: factoryOf(&fakeEngine{}, Shared), Logger: testLogger(t), Records: recs})
	require.NoError(t, err)
	b.me = 2
	round := func(n int) flipsight.Match {
		var m flipsight.Match
		js := fmt.Sprintf(`{"id":-7,"kind":"human","bot_a":2,"status":"running","game_mode":"std","round_no":%d,"room_created_at":"2026-12-07 00:00:00",`+
			`"state":{"game_mode":"std","legs":[]}}`, n)
		require.NoError(t, json.Unmarshal([]byte(js), &m))
		return m
	}
	now := time.Now()
	b.quitting = true // no network: no move is sent
	b.observe(round(1), 1800000000000, now)
	require.Contains(t, b.matches, int64(-7))
	b.draining = true
	b.observe(round(2), 1800000000100, now)
	assert.NotContains(t, b.matches, int64(-7), "the new round is not played")
	b.observe(round(2), 1800000000200, now)
	assert.NotContains(t, b.matches, int64(-7), "nor taken up as a new match")
	require.Len(t, b.results, 1, "the round played ended the match for the bot")
	b.recording.Wait()
	require.Len(t, recs.all(), 0, "a leg never seen has nothing to record")
}
