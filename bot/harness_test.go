package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

const (
	myToken  = "fsbm_MYSECRETTOKEN"
	oppToken = "fsbm_OPPONENTTOKEN"
)

// faults is the fault plan of a fakeServer: the arena behind a middleware
// that injects failures. Counters are decremented as faults fire.
type faults struct {
	mu sync.Mutex
	// moveStatus: the next agent_move calls answer these statuses (with the
	// matching error string) without reaching the arena.
	moveStatus []int
	// moveCode overrides the error string of moveStatus answers.
	moveCode flipsight.ErrorCode
	// loseMoveAnswers: the next agent_move calls reach the arena, then the
	// connection is dropped without an answer.
	loseMoveAnswers int
	// dropMoves: the next agent_move calls are dropped before the arena.
	dropMoves int
	// hangMoves: the next agent_move calls get no answer at all until the
	// client gives up (before reaching the arena).
	hangMoves int
	// dropPolls: the next agent_poll calls are dropped before the arena.
	dropPolls int
	// streamStatus: the next stream opens answer these statuses.
	streamStatus []int
	// cutStreamAfter: the next stream is ended after this many lines.
	cutStreamAfter int
	// silentStreams: the next streams send headers and then nothing.
	silentStreams int
	// moveDelay holds every agent_move call this long before it reaches
	// the arena (a slow link or a starved server: the mover's clock runs).
	moveDelay time.Duration
}

// fakeServer is an arena served over httptest with faults injected.
type fakeServer struct {
	t      *testing.T
	arena  *arena.Server
	srv    *httptest.Server
	f      *faults
	cancel context.CancelFunc

	mu        sync.Mutex
	moveCalls map[[3]int64]int // (match, leg, revision) → agent_move requests
	moveVals  map[[3]int64][]string
	moves     int
	polls     atomic.Int32
	streams   atomic.Int32
}

type serverOpts struct {
	clock    time.Duration // per leg
	modes    []othello.Mode
	oppLevel int
}

func newFakeServer(t *testing.T, o serverOpts) *fakeServer {
	t.Helper()
	if o.clock == 0 {
		o.clock = 20 * time.Second
	}
	if o.modes == nil {
		o.modes = othello.AllModes()
	}
	a, err := arena.New(arena.Config{
		Bots: []arena.BotConfig{
			{Name: "me", Token: myToken, Modes: o.modes, MaxMatches: 8, NoAutoMatch: true},
			{Name: "opp", Token: oppToken, Modes: othello.AllModes(), MaxMatches: 8, NoAutoMatch: true},
			{Name: "house", Builtin: true, Level: o.oppLevel, Modes: othello.AllModes(), MaxMatches: 8, NoAutoMatch: true},
		},
		ClockPerLeg:  o.clock,
		PingInterval: 200 * time.Millisecond,
		Seed:         rand.Uint64(),
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	fs := &fakeServer{t: t, arena: a, f: &faults{}, cancel: cancel, moveCalls: map[[3]int64]int{}, moveVals: map[[3]int64][]string{}}
	fs.srv = httptest.NewServer(http.HandlerFunc(fs.serve))
	go a.Run(ctx, 20*time.Millisecond)
	t.Cleanup(func() {
		cancel()
		fs.srv.CloseClientConnections()
		fs.srv.Close()
		a.Close()
	})
	return fs
}

func (fs *fakeServer) apiURL() string { return fs.srv.URL + arena.APIPath }

func abort(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

func (fs *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	h := fs.arena.Handler()
	f := fs.f
	if r.URL.Path == flipsight.StreamPath {
		fs.streams.Add(1)
		f.mu.Lock()
		var status int
		if len(f.streamStatus) > 0 {
			status, f.streamStatus = f.streamStatus[0], f.streamStatus[1:]
		}
		silent := f.silentStreams > 0
		if silent {
			f.silentStreams--
		}
		cut := f.cutStreamAfter
		f.cutStreamAfter = 0
		f.mu.Unlock()
		switch {
		case status != 0:
			code := flipsight.CodeTooManyStreams
			if status == http.StatusServiceUnavailable {
				code = flipsight.CodeStorageUnavailable
			}
			writeErr(w, status, code)
		case silent:
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case cut > 0:
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			h.ServeHTTP(&cutWriter{ResponseWriter: w, left: cut, cancel: cancel}, r.WithContext(ctx))
		default:
			h.ServeHTTP(w, r)
		}
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != arena.APIPath {
		h.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req struct {
		Action   string          `json:"action"`
		MatchID  int64           `json:"match_id"`
		Leg      int64           `json:"leg"`
		Revision int64           `json:"revision"`
		Move     json.RawMessage `json:"move"`
	}
	_ = json.Unmarshal(body, &req)
	mine := r.Header.Get("Authorization") == "Bearer "+myToken
	if !mine {
		h.ServeHTTP(w, r)
		return
	}
	switch req.Action {
	case flipsight.ActionPoll:
		fs.polls.Add(1)
		f.mu.Lock()
		drop := f.dropPolls > 0
		if drop {
			f.dropPolls--
		}
		f.mu.Unlock()
		if drop {
			abort(w)
			return
		}
	case flipsight.ActionMove:
		fs.mu.Lock()
		k := [3]int64{req.MatchID, req.Leg, req.Revision}
		fs.moveCalls[k]++
		fs.moveVals[k] = append(fs.moveVals[k], string(req.Move))
		fs.moves++
		fs.mu.Unlock()
		f.mu.Lock()
		var status int
		if len(f.moveStatus) > 0 {
			status, f.moveStatus = f.moveStatus[0], f.moveStatus[1:]
		}
		code := f.moveCode
		lose := status == 0 && f.loseMoveAnswers > 0
		if lose {
			f.loseMoveAnswers--
		}
		drop := status == 0 && !lose && f.dropMoves > 0
		if drop {
			f.dropMoves--
		}
		hang := status == 0 && !lose && !drop && f.hangMoves > 0
		if hang {
			f.hangMoves--
		}
		delay := f.moveDelay
		f.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		switch {
		case hang:
			<-r.Context().Done()
			return
		case status != 0:
			if code == "" {
				code = flipsight.CodeStorageUnavailable
				if status == http.StatusConflict {
					code = flipsight.CodeStaleRevision
				}
			}
			writeErr(w, status, code)
			return
		case drop:
			abort(w)
			return
		case lose:
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			abort(w)
			return
		}
	}
	h.ServeHTTP(w, r)
}

func writeErr(w http.ResponseWriter, status int, code flipsight.ErrorCode) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(flipsight.ErrorResponse{Error: string(code)})
}

// cutWriter ends the stream (cancels its request) after left lines.
type cutWriter struct {
	http.ResponseWriter
	left   int
	cancel context.CancelFunc
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errors.New("cut")
	}
	c.left -= bytes.Count(p, []byte("\n"))
	if c.left <= 0 {
		c.cancel()
	}
	return c.ResponseWriter.Write(p)
}

func (c *cutWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// maxMoveCallsPerRevision returns the largest number of agent_move requests
// sent for one (match, leg, revision).
func (fs *fakeServer) moveCallsFor(match int64) (total, maxPerRev int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for k, n := range fs.moveCalls {
		if k[0] == match {
			total += n
			maxPerRev = max(maxPerRev, n)
		}
	}
	return
}

// extraCalls returns how many agent_move requests of a match repeated an
// earlier request's (match, leg, revision).
func (fs *fakeServer) extraCalls(match int64) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := 0
	for k, c := range fs.moveCalls {
		if k[0] == match {
			n += c - 1
		}
	}
	return n
}

// waitResult waits for a match to end and returns its result.
func (fs *fakeServer) waitResult(t *testing.T, id int64, within time.Duration) arena.MatchResult {
	t.Helper()
	deadline := time.Now().Add(within)
	w, stop := fs.arena.Watch()
	defer stop()
	for {
		if r, ok := fs.arena.Result(id); ok && isFinal(r.Status) {
			return r
		}
		if time.Now().After(deadline) {
			m, _ := fs.arena.MatchJSON(id)
			b, _ := json.Marshal(m)
			t.Fatalf("match %d did not end within %v: %s", id, within, b)
		}
		select {
		case <-w:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// fakeEngine is a scripted engine: it plays a rules-legal move (random or
// first), or misbehaves as told.
type fakeEngine struct {
	behave string // "", "hang", "error", "illegal", "slow"
	delay  time.Duration
	// gate, when set, holds every move until it is closed (or the move's
	// context ends): a test opens it once the matches it wants to overlap
	// are all running, whatever the machine's load.
	gate   <-chan struct{}
	calls  atomic.Int32
	closed atomic.Int32
	modes  []othello.Mode
}

func (e *fakeEngine) Name() string { return "fake" }
func (e *fakeEngine) Supports(m othello.Mode) bool {
	if e.modes == nil {
		return true
	}
	for _, x := range e.modes {
		if x == m {
			return true
		}
	}
	return false
}
func (e *fakeEngine) Close() error { e.closed.Add(1); return nil }
func (e *fakeEngine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	e.calls.Add(1)
	if e.gate != nil {
		select {
		case <-e.gate:
		case <-ctx.Done():
			return engines.Result{}, ctx.Err()
		}
	}
	switch e.behave {
	case "hang":
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // ignores the deadline a little, too
		return engines.Result{}, ctx.Err()
	case "error":
		return engines.Result{}, errors.New("engine crashed")
	case "illegal":
		return engines.Result{Move: 200}, nil
	case "slow":
		select {
		case <-time.After(e.delay):
		case <-ctx.Done():
			return engines.Result{}, ctx.Err()
		}
	}
	legal := req.Position.LegalMoves()
	if len(legal) == 0 {
		return engines.Result{Move: othello.Pass}, nil
	}
	return engines.Result{Move: legal[rand.IntN(len(legal))], Depth: 1}, nil
}

func factoryOf(e *fakeEngine, scope Scope) EngineFactory {
	return EngineFactory{Name: "fake", Modes: e.modes, Scope: scope, New: func() (engines.Engine, error) { return e, nil }}
}

// testLogger logs to the test output only with -v and FLIPBOT_TEST_LOG set.
func testLogger(t *testing.T) *slog.Logger {
	if os.Getenv("FLIPBOT_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// logBuffer captures logs (to check the token never appears).
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// fastTiming is the spec's timing scaled down for tests.
var fastTiming = Timing{
	PollStream: 500 * time.Millisecond, PollMatch: 50 * time.Millisecond, PollIdle: 100 * time.Millisecond,
	MinPollGap: 20 * time.Millisecond, BackoffMin: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond,
}

type botRun struct {
	bot      *Bot
	finished chan struct{}
	err      error
	stop     context.CancelFunc
	logs     *logBuffer
	maxM     atomic.Int32
}

// wait waits up to d for Run to return; ok is false on timeout.
func (br *botRun) wait(d time.Duration) (err error, ok bool) {
	select {
	case <-br.finished:
		return br.err, true
	case <-time.After(d):
		return nil, false
	}
}

// startBot runs a bot against fs; mod adjusts its options.
func startBot(t *testing.T, fs *fakeServer, eng EngineFactory, mod func(*Options, *flipsight.Config)) *botRun {
	t.Helper()
	tok, err := flipsight.NewToken(myToken)
	require.NoError(t, err)
	ccfg := flipsight.Config{APIURL: fs.apiURL(), Token: tok, StreamReadTimeout: 600 * time.Millisecond,
		RequestTimeout: 2 * time.Second}
	br := &botRun{logs: &logBuffer{}, finished: make(chan struct{})}
	opts := Options{Engine: eng, CPU: "test cpu", MaxThink: 2 * time.Second, Timing: fastTiming,
		Logger: slog.New(slog.NewTextHandler(io.MultiWriter(br.logs, logSink(t)), &slog.HandlerOptions{Level: slog.LevelDebug}))}
	opts.OnStatus = func(s Status) {
		n := int32(len(s.Matches))
		for {
			cur := br.maxM.Load()
			if n <= cur || br.maxM.CompareAndSwap(cur, n) {
				break
			}
		}
	}
	if mod != nil {
		mod(&opts, &ccfg)
	}
	c, err := flipsight.NewClient(ccfg)
	require.NoError(t, err)
	opts.Client = c
	b, err := New(opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	br.bot, br.stop = b, cancel
	go func() { br.err = b.Run(ctx); close(br.finished) }()
	t.Cleanup(func() {
		cancel()
		if _, ok := br.wait(10 * time.Second); !ok {
			t.Error("bot did not stop within 10 s")
		}
		if t.Failed() {
			lines := strings.Split(br.logs.String(), "\n")
			t.Logf("bot log (last 80 lines):\n%s", strings.Join(lines[max(0, len(lines)-80):], "\n"))
		}
		if strings.Contains(br.logs.String(), "MYSECRETTOKEN") {
			t.Error("the token appeared in the logs")
		}
		if strings.Contains(br.logs.String(), "bad object from the server") {
			t.Error("the client refused an object of the arena")
		}
	})
	return br
}

func logSink(t *testing.T) io.Writer {
	if os.Getenv("FLIPBOT_TEST_LOG") != "" {
		return os.Stderr
	}
	return io.Discard
}

// waitFor polls cond until true or the deadline.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
