package arenatest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
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
	"flipbot.dev/flipbot/arena/arenatest"
	"flipbot.dev/flipbot/flipsight"
)

const (
	botToken   = "fsbm_FRONTTESTTOKEN"
	otherToken = "fsbm_SOMEONEELSE"
)

// stub is a FlipSight-like server for the front's tests: it answers every
// API request {"ok":true} (an agent_move whose move is "bad" with 409
// illegal_move) and notes its action; its stream sends a numbered line
// every 5 ms until the request ends.
type stub struct {
	mu      sync.Mutex
	actions []string
}

func (s *stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == flipsight.StreamPath {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(w, "{\"line\":%d}\n", i); err != nil {
				return
			}
			if rc.Flush() != nil {
				return
			}
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	var req struct {
		Action string `json:"action"`
		Move   string `json:"move"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	s.mu.Lock()
	s.actions = append(s.actions, req.Action)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if req.Move == "bad" {
		w.WriteHeader(http.StatusConflict)
		fmt.Fprintf(w, `{"ok":false,"error":%q}`, flipsight.CodeIllegalMove)
		return
	}
	fmt.Fprint(w, `{"ok":true}`)
}

// reached returns the actions the server saw.
func (s *stub) reached() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.actions...)
}

// moveLog collects the front's move reports.
type moveLog struct {
	mu    sync.Mutex
	calls []arenatest.MoveCall
}

func (l *moveLog) add(c arenatest.MoveCall) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
}

func (l *moveLog) all() []arenatest.MoveCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]arenatest.MoveCall(nil), l.calls...)
}

// setup serves a stub behind a front for botToken.
func setup(t *testing.T) (*stub, *arenatest.Front, *moveLog, string) {
	t.Helper()
	s := &stub{}
	ml := &moveLog{}
	f := arenatest.NewFront(s, arenatest.Options{Token: botToken, OnMove: ml.add})
	ts := httptest.NewServer(f)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return s, f, ml, ts.URL
}

// post sends an API request as the bot with token.
func post(ctx context.Context, base, token, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+arena.APIPath, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	return http.DefaultClient.Do(req)
}

// answer posts body as the bot and returns the status, the error string
// and the Retry-After header of the answer.
func answer(t *testing.T, base, body string) (int, string, string) {
	t.Helper()
	resp, err := post(context.Background(), base, botToken, body)
	require.NoError(t, err)
	defer resp.Body.Close()
	var er flipsight.ErrorResponse
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&er))
	return resp.StatusCode, er.Error, resp.Header.Get("Retry-After")
}

const (
	pollBody = `{"action":"agent_poll"}`
	moveBody = `{"action":"agent_move","match_id":7,"leg":1,"revision":12,"move":"d3"}`
)

func TestRequestsAnsweredInTheServersPlace(t *testing.T) {
	s, f, ml, base := setup(t)
	f.Inject(func(p *arenatest.Plan) {
		p.Requests = []arenatest.Answer{
			{Status: http.StatusServiceUnavailable, RetryAfter: 1500 * time.Millisecond},
			{Status: http.StatusTooManyRequests, Code: "slow down"},
		}
	})
	st, code, ra := answer(t, base, pollBody)
	assert.Equal(t, http.StatusServiceUnavailable, st)
	assert.Equal(t, string(flipsight.CodeStorageUnavailable), code, "the server's string for the status")
	assert.Equal(t, "2", ra, "whole seconds, rounded up")
	st, code, ra = answer(t, base, moveBody)
	assert.Equal(t, http.StatusTooManyRequests, st)
	assert.Equal(t, "slow down", code)
	assert.Empty(t, ra)
	assert.Empty(t, s.reached(), "neither reached the server")
	st, _, _ = answer(t, base, pollBody)
	assert.Equal(t, http.StatusOK, st, "the plan is spent")
	assert.Equal(t, []string{flipsight.ActionPoll}, s.reached())
	assert.Equal(t, int64(2), f.Polls())
	calls := ml.all()
	require.Len(t, calls, 1, "the answered move is reported")
	assert.Equal(t, arenatest.Answered, calls[0].Fault)
	assert.Equal(t, http.StatusTooManyRequests, calls[0].Answer.Status)
	assert.False(t, calls[0].Reached)
}

func TestMoveAnswersAndDefaultCodes(t *testing.T) {
	s, f, ml, base := setup(t)
	f.Inject(func(p *arenatest.Plan) {
		p.Moves = []arenatest.Answer{{Status: http.StatusConflict}, {Status: http.StatusConflict, Code: flipsight.CodeIllegalMove}}
	})
	st, _, _ := answer(t, base, pollBody)
	assert.Equal(t, http.StatusOK, st, "a poll does not meet a move's fault")
	_, code, _ := answer(t, base, moveBody)
	assert.Equal(t, string(flipsight.CodeStaleRevision), code)
	_, code, _ = answer(t, base, moveBody)
	assert.Equal(t, string(flipsight.CodeIllegalMove), code)
	st, _, _ = answer(t, base, moveBody)
	assert.Equal(t, http.StatusOK, st)
	assert.Equal(t, []string{flipsight.ActionPoll, flipsight.ActionMove}, s.reached())
	calls := ml.all()
	require.Len(t, calls, 3)
	last := calls[2]
	assert.Equal(t, arenatest.None, last.Fault)
	assert.True(t, last.Reached)
	assert.Equal(t, http.StatusOK, last.Status)
	assert.Empty(t, last.Code)
	assert.Equal(t, [3]int64{7, 1, 12}, [3]int64{last.Match, last.Leg, last.Revision})
	assert.JSONEq(t, `"d3"`, string(last.Move))
}

func TestServersRefusalIsReported(t *testing.T) {
	_, _, ml, base := setup(t)
	st, code, _ := answer(t, base, `{"action":"agent_move","move":"bad"}`)
	assert.Equal(t, http.StatusConflict, st, "passed on as the server gave it")
	assert.Equal(t, string(flipsight.CodeIllegalMove), code)
	calls := ml.all()
	require.Len(t, calls, 1)
	assert.True(t, calls[0].Reached)
	assert.Equal(t, http.StatusConflict, calls[0].Status)
	assert.Equal(t, flipsight.CodeIllegalMove, calls[0].Code)
}

func TestLostDroppedAndHungMoves(t *testing.T) {
	s, f, ml, base := setup(t)
	f.Inject(func(p *arenatest.Plan) { p.LoseMoveAnswers, p.DropMoves, p.HangMoves = 1, 1, 1 })
	_, err := post(context.Background(), base, botToken, moveBody)
	require.Error(t, err, "the answer is lost")
	assert.Equal(t, []string{flipsight.ActionMove}, s.reached(), "after the server applied it")
	_, err = post(context.Background(), base, botToken, moveBody)
	require.Error(t, err, "dropped")
	assert.Len(t, s.reached(), 1, "before the server")
	require.Len(t, ml.all(), 2, "reported before their clients saw their connections close")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err = post(ctx, base, botToken, moveBody)
	require.ErrorIs(t, err, context.DeadlineExceeded, "no answer until the client gives up")
	assert.GreaterOrEqual(t, time.Since(began), 100*time.Millisecond)
	assert.Len(t, s.reached(), 1)
	require.Eventually(t, func() bool { return len(ml.all()) == 3 }, 5*time.Second, 5*time.Millisecond,
		"the hung move is reported once the client went away")
	calls := ml.all()
	assert.Equal(t, arenatest.LostAnswer, calls[0].Fault)
	assert.True(t, calls[0].Reached)
	assert.Equal(t, http.StatusOK, calls[0].Status)
	assert.Equal(t, arenatest.Dropped, calls[1].Fault)
	assert.False(t, calls[1].Reached)
	assert.Equal(t, arenatest.Hung, calls[2].Fault)
	assert.False(t, calls[2].Reached)
	assert.Equal(t, arenatest.Plan{}, f.Pending(), "all fired")
	st, _, _ := answer(t, base, moveBody)
	assert.Equal(t, http.StatusOK, st)
}

func TestDroppedPolls(t *testing.T) {
	s, f, _, base := setup(t)
	f.Inject(func(p *arenatest.Plan) { p.DropPolls = 2 })
	st, _, _ := answer(t, base, moveBody)
	assert.Equal(t, http.StatusOK, st, "a move does not meet a poll's fault")
	for range 2 {
		_, err := post(context.Background(), base, botToken, pollBody)
		require.Error(t, err)
	}
	st, _, _ = answer(t, base, pollBody)
	assert.Equal(t, http.StatusOK, st)
	assert.Equal(t, []string{flipsight.ActionMove, flipsight.ActionPoll}, s.reached())
	assert.Equal(t, int64(3), f.Polls())
}

func TestMoveDelay(t *testing.T) {
	const delay = 300 * time.Millisecond
	_, f, ml, base := setup(t)
	f.Inject(func(p *arenatest.Plan) { p.MoveDelay = delay })
	began := time.Now()
	st, _, _ := answer(t, base, moveBody)
	assert.Equal(t, http.StatusOK, st)
	assert.GreaterOrEqual(t, time.Since(began), delay)
	began = time.Now()
	answer(t, base, pollBody)
	assert.Less(t, time.Since(began), delay, "polls are not delayed")
	assert.Equal(t, delay, f.Pending().MoveDelay, "the delay stays")
	calls := ml.all()
	require.Len(t, calls, 1)
	assert.True(t, calls[0].Reached)
	assert.Less(t, calls[0].Took, delay, "the server's own time")
}

func TestOtherBotsPassUntouched(t *testing.T) {
	s, f, ml, base := setup(t)
	f.Inject(func(p *arenatest.Plan) {
		p.Requests = []arenatest.Answer{{Status: http.StatusServiceUnavailable}}
		p.Streams = []arenatest.Answer{{Status: http.StatusTooManyRequests}}
	})
	resp, err := post(context.Background(), base, otherToken, moveBody)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp = openStream(t, context.Background(), base, otherToken)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, []string{flipsight.ActionMove}, s.reached())
	assert.Empty(t, ml.all(), "not reported")
	assert.Zero(t, f.Streams(), "not counted")
	assert.Len(t, f.Pending().Requests, 1, "still planned")
	st, _, _ := answer(t, base, pollBody)
	assert.Equal(t, http.StatusServiceUnavailable, st)
}

// openStream opens a stream as the bot with token.
func openStream(t *testing.T, ctx context.Context, base, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+flipsight.StreamPath, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

// lines reads a stream's lines until it ends.
func lines(t *testing.T, resp *http.Response) int {
	t.Helper()
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	n := 0
	for sc.Scan() {
		n++
	}
	return n
}

func TestStreamFaults(t *testing.T) {
	_, f, _, base := setup(t)
	f.Inject(func(p *arenatest.Plan) {
		p.Streams = []arenatest.Answer{{Status: http.StatusTooManyRequests, RetryAfter: 3 * time.Second}, {Status: http.StatusServiceUnavailable}}
		p.SilentStreams = 1
		p.CutStreamAfter = 4
	})
	ctx := context.Background()
	for _, want := range []struct {
		status int
		code   flipsight.ErrorCode
		retry  string
	}{
		{http.StatusTooManyRequests, flipsight.CodeTooManyStreams, "3"},
		{http.StatusServiceUnavailable, flipsight.CodeStorageUnavailable, ""},
	} {
		resp := openStream(t, ctx, base, botToken)
		var er flipsight.ErrorResponse
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&er))
		resp.Body.Close()
		assert.Equal(t, want.status, resp.StatusCode)
		assert.Equal(t, string(want.code), er.Error)
		assert.Equal(t, want.retry, resp.Header.Get("Retry-After"))
	}

	sctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	resp := openStream(t, sctx, base, botToken)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "silent: headers")
	_, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.ErrorIs(t, err, context.DeadlineExceeded, "then nothing")

	assert.Equal(t, 4, lines(t, openStream(t, ctx, base, botToken)), "cut after 4 lines")
	assert.Equal(t, int64(4), f.Streams())
	assert.Equal(t, arenatest.Plan{}, f.Pending())
}

func TestCutStreams(t *testing.T) {
	_, f, _, base := setup(t)
	ctx := context.Background()
	got := make(chan int, 2)
	for range 2 {
		resp := openStream(t, ctx, base, botToken)
		go func() { got <- lines(t, resp) }()
	}
	require.Eventually(t, func() bool { return f.Streams() == 2 }, 5*time.Second, 5*time.Millisecond)
	time.Sleep(30 * time.Millisecond)
	assert.Equal(t, 2, f.CutStreams())
	for range 2 {
		select {
		case n := <-got:
			assert.Positive(t, n)
		case <-time.After(5 * time.Second):
			t.Fatal("a cut stream did not end")
		}
	}
	require.Eventually(t, func() bool { return f.CutStreams() == 0 }, 5*time.Second, 5*time.Millisecond, "forgotten once ended")
}

func TestFaultsFireOnlyOnRequestsTheyApplyTo(t *testing.T) {
	_, f, _, base := setup(t)
	f.Inject(func(p *arenatest.Plan) {
		p.Streams = []arenatest.Answer{{Status: http.StatusServiceUnavailable}}
		p.SilentStreams = 1
	})
	resp := openStream(t, context.Background(), base, botToken)
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, 1, f.Pending().SilentStreams, "the refused stream did not consume the silent one")
}

func TestFaultString(t *testing.T) {
	for f, want := range map[arenatest.Fault]string{
		arenatest.None: "none", arenatest.Answered: "answered", arenatest.LostAnswer: "lost answer",
		arenatest.Dropped: "dropped", arenatest.Hung: "hung", arenatest.Fault(9): "Fault(9)",
	} {
		assert.Equal(t, want, f.String())
	}
}

// The front in front of the arena, as a bot client sees it.
func TestFrontOfTheArena(t *testing.T) {
	a, err := arena.New(arena.Config{Bots: []arena.BotConfig{{Name: "me", Token: botToken}}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	go a.Run(ctx, 20*time.Millisecond)
	f := arenatest.NewFront(a.Handler(), arenatest.Options{Token: botToken})
	ts := httptest.NewServer(f)
	t.Cleanup(func() {
		cancel()
		ts.CloseClientConnections()
		ts.Close()
		a.Close()
	})
	tok, err := flipsight.NewToken(botToken)
	require.NoError(t, err)
	c, err := flipsight.NewClient(flipsight.Config{APIURL: ts.URL + arena.APIPath, Token: tok})
	require.NoError(t, err)
	f.Inject(func(p *arenatest.Plan) {
		p.Requests = []arenatest.Answer{{Status: http.StatusServiceUnavailable, RetryAfter: 2 * time.Second}}
	})
	_, err = c.Poll(ctx, nil)
	e := flipsight.AsAPIError(err)
	require.NotNil(t, e, "%v", err)
	assert.Equal(t, http.StatusServiceUnavailable, e.Status)
	assert.Equal(t, 2*time.Second, e.RetryAfter)
	resp, err := c.Poll(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, "me", resp.Bot.Name)
	assert.Equal(t, int64(2), f.Polls())
}
