package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock"
	"flipbot.dev/flipbot/internal/clock/clocktest"
	"flipbot.dev/flipbot/internal/testutil"
)

const otherToken = "fsbm_CMDTESTOTHER"

// actions counts the API calls an arena gets, by action, in front of its
// handler; retryAfter, when set, is sent as the Retry-After of every
// agent_challenge answer.
type actions struct {
	mu         sync.Mutex
	n          map[string]int
	retryAfter string
}

func (c *actions) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == arena.APIPath {
			body, err := io.ReadAll(io.LimitReader(r.Body, arena.MaxBodyBytes+1))
			if err != nil {
				http.Error(w, "read", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				Action string `json:"action"`
			}
			_ = json.Unmarshal(body, &req)
			c.mu.Lock()
			c.n[req.Action]++
			ra := c.retryAfter
			c.mu.Unlock()
			if ra != "" && req.Action == flipsight.ActionChallenge {
				w.Header().Set("Retry-After", ra)
			}
		}
		h.ServeHTTP(w, r)
	})
}

func (c *actions) count(action string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[action]
}

func (c *actions) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n = map[string]int{}
}

// challengeArena starts an arena on loopback with the bots "me" (token
// testToken, modes), "mestd" (otherToken, std only), "stdonly" (std
// only, never connected), "x1" and "x2" (grand, never connected) and the
// built-in "house" (every mode), behind a counter of API calls.
func challengeArena(t *testing.T, clock clock.Clock, meModes []othello.Mode) (*arena.Server, string, *actions) {
	t.Helper()
	a, err := arena.New(arena.Config{Clock: clock, Seed: 1, Bots: []arena.BotConfig{
		{Name: "me", Token: testToken, Modes: meModes, NoAutoMatch: true},
		{Name: "mestd", Token: otherToken, NoAutoMatch: true},
		{Name: "stdonly", Token: "fsbm_CMDTESTSTDONLY", NoAutoMatch: true},
		{Name: "x1", Token: "fsbm_CMDTESTX1", Modes: []othello.Mode{othello.Grand}, NoAutoMatch: true},
		{Name: "x2", Token: "fsbm_CMDTESTX2", Modes: []othello.Mode{othello.Grand}, NoAutoMatch: true},
		{Name: "house", Builtin: true, Level: 1, Modes: othello.AllModes(), NoAutoMatch: true},
	}, ClockPerLeg: 20 * time.Second, PingInterval: 200 * time.Millisecond})
	require.NoError(t, err)
	counter := &actions{n: map[string]int{}}
	srv := httptest.NewServer(counter.wrap(a.Handler()))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); a.Close() })
	return a, srv.URL + arena.APIPath, counter
}

// noSleep fails the test if a retry waits.
func noSleep(t *testing.T) func(context.Context, time.Duration) error {
	return func(context.Context, time.Duration) error {
		t.Error("a retry that should not happen")
		return errors.New("no retry expected")
	}
}

var matchSent = regexp.MustCompile(`^challenge sent: match (\d+) \((\w+)\)\n$`)

func TestChallengeIsSentAndPlayed(t *testing.T) {
	a, api := newArena(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var botOut testutil.SyncBuffer
	done := make(chan int, 1)
	go func() {
		sig := func(context.Context, *slog.Logger) (context.Context, <-chan struct{}, func()) {
			c, stop := context.WithCancel(ctx)
			return c, nil, stop
		}
		done <- connect(append([]string{"--api", api, "--no-records", "--max-matches", "1", "--eval", "baseline"}, builtinFlags...), env(testToken), &botOut, &botOut, sig)
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("flipbot's log:\n%s", botOut.String())
		}
	})
	require.Eventually(t, func() bool { return a.Online("me") }, 60*time.Second, 20*time.Millisecond)

	var out, errs bytes.Buffer
	code := challenge(context.Background(), []string{"house", "--mode", "anti", "--api", api}, env(testToken), &out, &errs, noSleep(t))
	require.Equal(t, exitOK, code, errs.String())
	m := matchSent.FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	assert.Equal(t, "anti", m[2])
	id, err := strconv.ParseInt(m[1], 10, 64)
	require.NoError(t, err)

	var r arena.MatchResult
	require.Eventually(t, func() bool {
		r, _ = a.Result(id)
		return r.Ended
	}, 90*time.Second, 50*time.Millisecond, "the match is played to its end\n%s", botOut.String())
	assert.Equal(t, flipsight.MatchFinished, r.Status)
	assert.Equal(t, flipsight.FinishDiscs, r.FinishReason, "both legs played out, no timeout")
	mj, ok := a.MatchJSON(id)
	require.True(t, ok)
	assert.Equal(t, "anti", mj.GameMode)
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code, botOut.String())
	case <-time.After(30 * time.Second):
		t.Fatal("the connector did not stop")
	}
}

func TestChallengeRefusals(t *testing.T) {
	a, api, calls := challengeArena(t, nil, othello.AllModes())
	stdonlyID, ok := a.BotID("stdonly")
	require.True(t, ok)
	tests := []struct {
		name       string
		args       []string
		token      string
		code       int
		polls      int
		challenges int
		stderr     []string
	}{
		{name: "a target without the mode", args: []string{"stdonly", "--mode", "grand"}, code: exitFailure, polls: 1,
			stderr: []string{`not sent: "stdonly" (id ` + strconv.FormatInt(stdonlyID, 10) + `) supports "std", not grand`}},
		{name: "a target by id without the mode", args: []string{strconv.FormatInt(stdonlyID, 10), "--mode", "reversi"}, code: exitFailure, polls: 1,
			stderr: []string{`supports "std", not reversi`}},
		{name: "our engine is std only", args: []string{"house", "--mode", "anti", "--nboard", "ntest"}, code: exitFailure,
			stderr: []string{"--nboard", "std only, not anti"}},
		{name: "our bot does not list the mode", args: []string{"house", "--mode", "grand"}, token: otherToken, code: exitFailure, polls: 1,
			stderr: []string{`this bot ("mestd") lists supported games "std", not grand`}},
		{name: "a target not in bots[] is tried", args: []string{"nobody"}, code: exitFailure, polls: 1, challenges: 1,
			stderr: []string{"the target is not in agent_poll's bots[]", "target=nobody", "target bot not found"}},
		{name: "a name in another case is pointed at", args: []string{"HOUSE", "--mode", "std"}, code: exitFailure, polls: 1, challenges: 1,
			stderr: []string{"the target is not in agent_poll's bots[]", "target=HOUSE listed=house"}},
		{name: "another 409 is not retried", args: []string{"stdonly", "--retries", "5"}, code: exitFailure, polls: 1, challenges: 1,
			stderr: []string{"both bots must be connected"}},
		{name: "a rejected token", args: []string{"house"}, token: "fsbm_WRONG", code: exitToken, polls: 1},
		{name: "bad flags", args: []string{"house", "--retries", "-1"}, code: exitToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls.reset()
			tok := tt.token
			if tok == "" {
				tok = testToken
			}
			var out, errs bytes.Buffer
			code := challenge(context.Background(), append(tt.args, "--api", api), env(tok), &out, &errs, noSleep(t))
			require.Equal(t, tt.code, code, errs.String())
			assert.Empty(t, out.String())
			assert.Equal(t, tt.polls, calls.count(flipsight.ActionPoll), "agent_poll calls")
			assert.Equal(t, tt.challenges, calls.count(flipsight.ActionChallenge), "agent_challenge calls")
			for _, s := range tt.stderr {
				assert.Contains(t, errs.String(), s)
			}
			assert.NotContains(t, errs.String(), "CMDTEST")
		})
	}
}

// fullArena is an arena whose two built-in variant slots are taken by
// x1 and x2 against house (they never move, so both matches are aborted
// 30 s after their start).
func fullArena(t *testing.T) (*arena.Server, *clocktest.Clock, string, *actions) {
	t.Helper()
	clock := clocktest.New(time.Date(2026, 12, 2, 16, 0, 0, 0, time.UTC))
	a, api, calls := challengeArena(t, clock, othello.AllModes())
	for _, x := range []string{"x1", "x2"} {
		_, err := a.StartMatch(x, "house", othello.Grand)
		require.NoError(t, err)
	}
	return a, clock, api, calls
}

func TestChallengeRetriesWhileSiteVariantsAreFull(t *testing.T) {
	a, clock, api, calls := fullArena(t)
	var waits []time.Duration
	sleep := func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		if len(waits) == 2 {
			// Both blocking matches reach the no-first-move abort.
			clock.Advance(arena.DefaultFirstMove + time.Second)
			a.Tick()
		}
		return nil
	}
	var out, errs bytes.Buffer
	code := challenge(context.Background(), []string{"house", "--mode", "grand", "--api", api, "--retry-wait", "0.25"},
		env(testToken), &out, &errs, sleep)
	require.Equal(t, exitOK, code, errs.String())
	assert.Regexp(t, matchSent, out.String())
	assert.Equal(t, []time.Duration{250 * time.Millisecond, 250 * time.Millisecond}, waits)
	assert.Equal(t, 3, calls.count(flipsight.ActionChallenge), "sent, then again twice")
	assert.Equal(t, 1, calls.count(flipsight.ActionPoll))
	assert.Equal(t, 2, strings.Count(errs.String(), "site bot variant matches are full: sending the challenge again"), errs.String())
	assert.Contains(t, errs.String(), "retry=2 of=5")
}

func TestChallengeGivesUpWhenSiteVariantsStayFull(t *testing.T) {
	_, _, api, calls := fullArena(t)
	calls.retryAfter = "7"
	var waits []time.Duration
	sleep := func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}
	var out, errs bytes.Buffer
	code := challenge(context.Background(), []string{"house", "--mode", "octagon", "--api", api, "--retries", "2"},
		env(testToken), &out, &errs, sleep)
	require.Equal(t, exitFailure, code)
	assert.Empty(t, out.String())
	assert.Equal(t, []time.Duration{7 * time.Second, 7 * time.Second}, waits, "Retry-After wins over --retry-wait")
	assert.Equal(t, 3, calls.count(flipsight.ActionChallenge))
	assert.Contains(t, errs.String(), `"site bot variant matches are full" (still, after 2 retries)`)
}

func TestChallengeStopsWaitingWhenCancelled(t *testing.T) {
	_, _, api, calls := fullArena(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errs bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- challenge(ctx, []string{"house", "--mode", "grand", "--api", api, "--retry-wait", "3600"},
			env(testToken), io.Discard, &errs, sleep)
	}()
	require.Eventually(t, func() bool { return calls.count(flipsight.ActionChallenge) == 1 }, 10*time.Second, 10*time.Millisecond)
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitFailure, code)
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not end with the context")
	}
	assert.Equal(t, 1, calls.count(flipsight.ActionChallenge))
}
