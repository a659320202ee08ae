package bot

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena/arenatest"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock/clocktest"
)

// TestTheBotsTimersRunOnItsClock: given a fake clock, the bot polls again
// and writes its minute's status line only when that clock is advanced;
// none of its scheduling reads the system clock. (Before the one clock,
// polls ran on real time: a dozen in the second waited here.)
func TestTheBotsTimersRunOnItsClock(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	clk := clocktest.New(time.Now())
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, c *flipsight.Config) {
		o.Clock = clk
		c.StreamReadTimeout = time.Minute // the stream's reads are the HTTP client's, on real time
	})
	waitFor(t, 5*time.Second, "online", func() bool { return br.bot.Status().State == StateOnline })
	waitFor(t, 5*time.Second, "the first poll", func() bool { return fs.front.Polls() > 0 })
	time.Sleep(200 * time.Millisecond) // polls the connection made are in
	polls := fs.front.Polls()
	time.Sleep(time.Second) // ten idle poll intervals of real time
	assert.Equal(t, polls, fs.front.Polls(), "no poll while the bot's clock stands")

	clk.Advance(fastTiming.PollStream)
	waitFor(t, 5*time.Second, "a poll once the clock moved", func() bool { return fs.front.Polls() > polls })

	assert.NotContains(t, br.logs.String(), `msg=status `)
	clk.Advance(time.Minute)
	waitFor(t, 5*time.Second, "the status line after the clock's minute", func() bool {
		return strings.Contains(br.logs.String(), `msg=status `)
	})
}

// TestAStreamThatWorkedResetsTheBackoff: after refusals grew the reconnect
// backoff to 8 s, a stream that then worked (stayed up streamWorked on the
// bot's clock) and was cut is reopened after the first backoff's second,
// not the grown 8 s: a cut at the end of a leg once left
// the bot polling once a second for 8.4 s, a second of its clock per move,
// and the leg was lost on time (the soak). The bot runs on a fake clock, so
// that the waits are exact.
func TestAStreamThatWorkedResetsTheBackoff(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	clk := clocktest.New(time.Now())
	fs.inject(func(f *faults) {
		for range 3 {
			f.Streams = append(f.Streams, arenatest.Answer{Status: http.StatusServiceUnavailable})
		}
		// The stream that opens then is cut after ten lines (the arena
		// pings every 200 ms of real time): the test has moved the bot's
		// clock by streamWorked by then.
		f.CutStreamAfter = 10
	})
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, c *flipsight.Config) {
		o.Clock = clk
		o.Timing.BackoffMin, o.Timing.BackoffMax = time.Second, 30*time.Second
		c.StreamReadTimeout = time.Minute // the stream's reads are the HTTP client's, on real time
	})
	// Three refusals grow the backoff to 8 s; the fourth stream opens.
	advanceUntil(t, clk, "three refusals", 20*time.Second, func() bool { return fs.front.Streams() >= 4 })
	waitFor(t, 5*time.Second, "online", func() bool { return br.bot.Status().State == StateOnline })
	time.Sleep(100 * time.Millisecond) // the reader notes when it connected
	opened := fs.front.Streams()
	clk.Advance(streamWorked)
	waitFor(t, 5*time.Second, "the stream cut", func() bool {
		return strings.Contains(br.logs.String(), "event stream lost; reconnecting")
	})
	waited := advanceUntil(t, clk, "the stream reopened", 15*time.Second, func() bool { return fs.front.Streams() > opened })
	assert.LessOrEqual(t, waited, 1300*time.Millisecond, "reopened after the first backoff (1 s, jitter up to 1.25 s)")
}

// advanceUntil moves clk in small steps, letting the bot's goroutines run
// between them, until cond holds (at most limit), and returns how far it
// moved.
func advanceUntil(t *testing.T, clk *clocktest.Clock, what string, limit time.Duration, cond func() bool) time.Duration {
	t.Helper()
	var moved time.Duration
	for !cond() {
		if moved >= limit {
			t.Fatalf("%s: not within %v of the bot's clock", what, limit)
		}
		time.Sleep(5 * time.Millisecond)
		clk.Advance(50 * time.Millisecond)
		moved += 50 * time.Millisecond
	}
	return moved
}

// TestTheStreamReturnsWithTheServer: refusals grew the reconnect backoff
// to 4 s; then the stream's connection fails with no answer at all (the
// server away, restarting). As soon as a poll gets through the stream is
// tried again, not after the backoff: in the soak the stream stayed away
// 4.6 s after the server was back, the bot polled once a second, each
// move cost a second of a short clock, and the leg was lost on time. On a
// fake clock, so that the waits are exact.
func TestTheStreamReturnsWithTheServer(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	clk := clocktest.New(time.Now())
	fs.inject(func(f *faults) {
		f.Streams = []arenatest.Answer{{Status: http.StatusServiceUnavailable}, {Status: http.StatusServiceUnavailable}}
		f.DropStreams = 1
	})
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, c *flipsight.Config) {
		o.Clock = clk
		o.Timing.BackoffMin, o.Timing.BackoffMax = time.Second, 30*time.Second
		c.StreamReadTimeout = time.Minute // the stream's reads are the HTTP client's, on real time
	})
	advanceUntil(t, clk, "two refusals and a dropped connection", 10*time.Second, func() bool {
		return strings.Count(br.logs.String(), "event stream unavailable") >= 3
	})
	require.GreaterOrEqual(t, fs.front.Streams(), int64(3), "two refused, one dropped")
	waited := advanceUntil(t, clk, "the stream back", 10*time.Second, func() bool {
		return br.bot.Status().State == StateOnline
	})
	assert.Less(t, waited, time.Second, "back with the first poll that got through, not after the 4-s backoff")
}
