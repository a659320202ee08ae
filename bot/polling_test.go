package bot

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// TestHumanTurnsWithTheStreamArePolledAtOnce: with the stream up, a human
// match's event (which carries only the match id) is answered by a poll at
// once, not a second after the last poll: the spec's one-second floor is a
// rule for polling without the stream. A 9 s clock against a human who
// answers at once (the arena's) is lost on time when every own turn waits
// out a second (about 30 own moves), and played to its end when each turn
// costs a round trip.
func TestHumanTurnsWithTheStreamArePolledAtOnce(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, _ *flipsight.Config) {
		// The spec's own figures: polls every 10 s with the stream, never
		// more than once a second without it.
		o.Timing = Timing{PollStream: 10 * time.Second, PollMatch: time.Second, PollIdle: 5 * time.Second,
			MinPollGap: time.Second, BackoffMin: time.Second, BackoffMax: 30 * time.Second}
	})
	waitFor(t, 5*time.Second, "online", func() bool { return br.bot.Status().State == StateOnline })
	h, err := fs.arena.CreateHuman(arena.HumanOptions{Bot: "me", Mode: othello.Std, Clock: 9 * time.Second})
	require.NoError(t, err)
	var r arena.MatchResult
	waitFor(t, 40*time.Second, "the human match's end", func() bool {
		r, _ = fs.arena.Result(h)
		return r.Ended
	})
	assert.Equal(t, flipsight.FinishDiscs, r.FinishReason, "played to its end, not lost on time")
	n, _ := fs.moveCallsFor(h)
	assert.GreaterOrEqual(t, n, 20, "own moves played")
}

// delayedPolls is a transport that holds every agent_poll request for the
// next of delays (in turn) before it is written: a loaded machine that runs
// the poll's goroutine late.
type delayedPolls struct {
	mu     sync.Mutex
	delays []time.Duration
	n      int
}

func (d *delayedPolls) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	if bytes.Contains(body, []byte(flipsight.ActionPoll)) {
		d.mu.Lock()
		delay := d.delays[d.n%len(d.delays)]
		d.n++
		d.mu.Unlock()
		time.Sleep(delay)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestPollFloorHoldsAsTheServerSeesIt: without the stream, the minimum gap
// between polls is counted from when each request was written, so a poll
// whose request went out late (a starved goroutine) does not bring the next
// one closer than the gap at the server. Counted from the loop's decision,
// requests delayed by 0.4 and then 0 gaps reached the server 0.6 gaps apart.
func TestPollFloorHoldsAsTheServerSeesIt(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{clock: 60 * time.Second})
	rec := newRecorder(t, fs)
	const gap = 250 * time.Millisecond
	tr := &delayedPolls{delays: []time.Duration{gap * 2 / 5, 0}}
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, c *flipsight.Config) {
		c.APIURL = rec.apiURL()
		c.HTTPClient = &http.Client{Transport: tr}
		o.NoStream = true
		o.Timing = Timing{PollStream: 10 * time.Second, PollMatch: gap, PollIdle: gap, MinPollGap: gap,
			BackoffMin: gap, BackoffMax: 10 * gap}
	})
	waitOnline(t, fs, br)
	from := time.Now()
	time.Sleep(12 * gap)
	gaps := rec.pollGaps(from)
	require.GreaterOrEqual(t, len(gaps), 6)
	for _, g := range gaps {
		// The bot keeps a twentieth to spare; the test server's own
		// scheduling on a loaded machine may eat three times as much (before,
		// gaps of 0.6 of the gap came through).
		assert.GreaterOrEqual(t, g, gap-gap/7, "polls closer than the gap at the server: %v", gaps)
	}
}

// TestIdlePollsBackOffOn503: failed idle polls (503) are retried at growing
// intervals, and a success returns to the idle interval.
func TestIdlePollsBackOffOn503(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	rec := newRecorder(t, fs)
	const idle = 100 * time.Millisecond
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, c *flipsight.Config) {
		c.APIURL = rec.apiURL()
		o.NoStream = true
		o.Timing = Timing{PollStream: 10 * time.Second, PollMatch: idle / 5, PollIdle: idle, MinPollGap: idle / 5,
			BackoffMin: idle / 5, BackoffMax: 8 * idle}
	})
	waitOnline(t, fs, br)
	rec.mu.Lock()
	rec.failPolls = 6
	rec.mu.Unlock()
	from := time.Now()
	waitFor(t, 10*time.Second, "six failed polls and two good ones", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return rec.failPolls == 0 && len(rec.polls) > 0 && time.Since(rec.polls[len(rec.polls)-1]) < idle &&
			len(rec.pollGapsLocked(from)) >= 8
	})
	gaps := rec.pollGaps(from)
	// gaps[0] leads to the first failure; the waits after failures 2–5
	// double from the idle interval up to BackoffMax.
	for i, want := range []time.Duration{2 * idle, 4 * idle, 8 * idle, 8 * idle} {
		assert.GreaterOrEqual(t, gaps[i+2], want-idle/10, "wait after failure %d: %v", i+2, gaps)
	}
	last := gaps[len(gaps)-1]
	assert.Less(t, last, 2*idle, "back to the idle interval after a success: %v", gaps)
}

func TestPollBackoff(t *testing.T) {
	t.Parallel()
	b := &Bot{t: Timing{}.withDefaults(), matches: map[int64]*match{}}
	idle := []time.Duration{0, 0, 10 * time.Second, 20 * time.Second, 30 * time.Second, 30 * time.Second}
	for f, want := range idle {
		assert.Equal(t, want, b.pollBackoff(f), "idle, %d failures", f)
	}
	b.matches[1] = &match{}
	inMatch := []time.Duration{0, 0, 2 * time.Second, 4 * time.Second, 4 * time.Second}
	for f, want := range inMatch {
		assert.Equal(t, want, b.pollBackoff(f), "in a match, %d failures", f)
	}
}

// TestWrongAPIURLIsSaid: when --api names a web page (HTML with 200) or a
// path that answers 404, the bot says once, after a few answers, that --api
// looks wrong and what came instead.
func TestWrongAPIURLIsSaid(t *testing.T) {
	t.Parallel()
	for name, h := range map[string]http.HandlerFunc{
		"page": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<!DOCTYPE html>\n<html><head><title>Othello Club</title></head></html>")
		},
		"404": func(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			fs := newFakeServer(t, serverOpts{})
			br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, c *flipsight.Config) {
				c.APIURL = srv.URL + "/flipsight/"
				o.NoStream = true
			})
			const line = "the API URL looks wrong (check --api)"
			waitFor(t, 5*time.Second, "the wrong --api said", func() bool { return strings.Contains(br.logs.String(), line) })
			time.Sleep(10 * fastTiming.PollIdle)
			logs := br.logs.String()
			assert.Equal(t, 1, strings.Count(logs, line), "said once")
			if name == "page" {
				assert.Contains(t, logs, "<!DOCTYPE html> <html><head><title>Othello Club")
			} else {
				assert.Contains(t, logs, "HTTP 404")
			}
		})
	}
}
