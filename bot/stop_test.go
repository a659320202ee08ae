package bot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// A stop request (Ctrl-C, SIGTERM: Run's context cancelled) in the middle
// of a match plays it to its end, writes its records before Run returns,
// and accepts nothing new meanwhile.
func TestStopPlaysTheRunningMatchToItsEnd(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{clock: 5 * time.Second})
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

	_, ok := br.wait(40 * time.Second)
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
