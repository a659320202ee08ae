package bot

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/arena/arenatest"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/testutil"
)

const (
	myToken  = "fsbm_MYSECRETTOKEN"
	oppToken = "fsbm_OPPONENTTOKEN"
)

// faults is the fault plan of a fakeServer (the arena behind an
// arenatest.Front); set it with fakeServer.inject.
type faults = arenatest.Plan

// fakeServer is an arena served over httptest behind a front that injects
// faults into the requests of "me" (myToken).
type fakeServer struct {
	t      *testing.T
	arena  *arena.Server
	front  *arenatest.Front
	srv    *httptest.Server
	cancel context.CancelFunc

	mu        sync.Mutex
	moveCalls map[[3]int64]int // (match, leg, revision) → agent_move requests
	moveVals  map[[3]int64][]string
	moveAt    map[[3]int64][]time.Time // when each request came
	moves     int
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
	fs := &fakeServer{t: t, arena: a, cancel: cancel, moveCalls: map[[3]int64]int{}, moveVals: map[[3]int64][]string{},
		moveAt: map[[3]int64][]time.Time{}}
	fs.front = arenatest.NewFront(a.Handler(), arenatest.Options{Token: myToken, OnMove: fs.noteMove})
	fs.srv = httptest.NewServer(fs.front)
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

// inject changes the fault plan (under the front's lock).
func (fs *fakeServer) inject(change func(*faults)) { fs.front.Inject(change) }

// noteMove counts an agent_move request of "me", whatever the front did
// with it.
func (fs *fakeServer) noteMove(c arenatest.MoveCall) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	k := [3]int64{c.Match, c.Leg, c.Revision}
	fs.moveCalls[k]++
	fs.moveVals[k] = append(fs.moveVals[k], string(c.Move))
	fs.moveAt[k] = append(fs.moveAt[k], time.Now())
	fs.moves++
}

// moveCallsFor returns how many agent_move requests were sent for a match,
// and the largest number for one (match, leg, revision).
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
	behave string // "", "hang", "error", "illegal", "slow", "stopsLate"
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
	case "stopsLate":
		// Searches until stopped, then takes delay to say its best move
		// (a loaded machine running the stopped search late).
		<-ctx.Done()
		time.Sleep(e.delay)
		legal := req.Position.LegalMoves()
		return engines.Result{Move: legal[len(legal)-1], Depth: 7}, nil
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

// testScope is how many engines a test's provider makes.
type testScope int

const (
	// Shared: one engine for every match (engines.Shared).
	Shared testScope = iota
	// PerMatch: one per match (engines.PerMatch).
	PerMatch
	// PerLeg: one per leg, kept warm (engines.PerLeg).
	PerLeg
)

// providerOf is the provider of scope over newEngine.
func providerOf(scope testScope, newEngine func() (engines.Engine, error)) engines.Provider {
	switch scope {
	case Shared:
		e, err := newEngine()
		if err != nil {
			panic(err)
		}
		return engines.Shared(e)
	case PerMatch:
		return engines.PerMatch(newEngine, nil)
	}
	return engines.PerLeg(engines.NewPool(engines.PoolConfig{New: newEngine, Keep: 4}))
}

func factoryOf(e *fakeEngine, scope testScope) Engines {
	return Engines{Name: "fake", Modes: e.modes, Provider: providerOf(scope, func() (engines.Engine, error) { return e, nil })}
}

// testLogger logs to the test output only with -v and FLIPBOT_TEST_LOG set.
func testLogger(t *testing.T) *slog.Logger {
	if os.Getenv("FLIPBOT_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// logBuffer captures logs (to check the token never appears).
type logBuffer = testutil.SyncBuffer

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
func startBot(t *testing.T, fs *fakeServer, eng Engines, mod func(*Options, *flipsight.Config)) *botRun {
	t.Helper()
	tok, err := flipsight.NewToken(myToken)
	require.NoError(t, err)
	ccfg := flipsight.Config{APIURL: fs.apiURL(), Token: tok, StreamReadTimeout: 600 * time.Millisecond,
		RequestTimeout: 2 * time.Second}
	br := &botRun{logs: &logBuffer{}, finished: make(chan struct{})}
	// Drain -1: a stop finishes the moves in flight only, as the tests that
	// stop a bot mid-match expect; the drain's own tests set it.
	opts := Options{Engine: eng, CPU: "test cpu", MaxThink: 2 * time.Second, Timing: fastTiming, Drain: -1,
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
		b.Stop()
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
