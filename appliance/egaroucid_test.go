package appliance

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/egaroucid"
	"flipbot.dev/flipbot/engines/egaroucid/egaroucidtest"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/proc"
	"flipbot.dev/flipbot/engines/sizing"
	"flipbot.dev/flipbot/internal/clock"
)

// TestMain makes the test binary double as a fake Egaroucid for Console
// (egaroucidtest) when the Egaroucid adapter starts it.
func TestMain(m *testing.M) { egaroucidtest.Main(m) }

// pi3 is a 1 GB Raspberry Pi 3 as Linux reports it (MemTotal without the
// GPU's share).
var pi3 = sizing.Machine{Memory: 906 * sizing.MiB, Cores: 4}

// fakePIDs returns the running processes started from the fake Egaroucid
// binary bin (its path is their argv[0]).
func fakePIDs(bin string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		if argv0, _, _ := strings.Cut(string(b), "\x00"); argv0 == bin {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			pids = append(pids, pid)
		}
	}
	return pids
}

func fakeProcesses(t *testing.T, bin string) int {
	t.Helper()
	return len(fakePIDs(bin))
}

// openStd opens a std bot match as the appliance's bot does: on pool,
// through the engines of withEgaroucid.
func openStd(t *testing.T, builtin engines.Engine, pool *egaroucid.Pool, id int64) engines.Session {
	t.Helper()
	s, err := withEgaroucid(builtin, map[othello.Mode]bool{}, pool).Provider.Open(context.Background(),
		engines.MatchInfo{ID: id, Mode: othello.Std, Legs: 2})
	require.NoError(t, err)
	return s
}

func testLogger(w *syncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// TestEgaroucidOverShareOnThePi: an Egaroucid that takes more than a 1 GB
// Pi's share (the fake allocates and touches 400 MiB at start, as a stock
// build writes its tables) is refused: the move is the built-in engine's,
// the process is killed, one line says what was found and how to fix it.
func TestEgaroucidOverShareOnThePi(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("SKIPPED: process memory is read from /proc (Linux only)")
	}
	var logs syncBuffer
	log := testLogger(&logs)
	bin := egaroucidtest.Install(t, "hog 400")
	s := settings.Default()
	builtin := &namedEngine{name: "builtin", modes: othello.AllModes()}
	pool := newEgaroucidPool(bin, s, pi3, engines.Shared(builtin), log)
	require.NotNil(t, pool)
	defer pool.Close()
	require.Greater(t, uint64(400*sizing.MiB), egaroucid.OverShareLimit(sizing.Egaroucid(pi3, pool.Slots()).Share))

	m := openStd(t, builtin, pool, 7)
	defer m.Close()
	req := engines.Request{Position: othello.New(othello.Std), Remaining: time.Minute, Budget: 20 * time.Second}
	r, err := m.Move(context.Background(), req.Leg, req)
	require.NoError(t, err, "no move lost for it")
	assert.Equal(t, builtinMove, r.Move, "played by the built-in engine")
	assert.ErrorIs(t, pool.Refused(), egaroucid.ErrOverShare)
	assert.Equal(t, 1, countOf(&logs, "Egaroucid refused"), logs.String())
	assert.Contains(t, logs.String(), "make egaroucid", "the line says how to fix it")
	assert.Contains(t, pool.Describe("builtin"), "Egaroucid refused")
	require.Eventually(t, func() bool { return fakeProcesses(t, bin) == 0 }, 5*time.Second, 20*time.Millisecond,
		"every Egaroucid process stopped")
	req.Leg = 1
	r, err = m.Move(context.Background(), req.Leg, req)
	require.NoError(t, err)
	assert.Equal(t, builtinMove, r.Move)
	assert.Zero(t, fakeProcesses(t, bin), "not started again")
}

// TestEgaroucidRefusedUpFront: the player checks the build when it starts
// (probe): a build over a 1 GB Pi's share is refused before any match, with
// one line, and nothing of it keeps running.
func TestEgaroucidRefusedUpFront(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("SKIPPED: process memory is read from /proc (Linux only)")
	}
	var logs syncBuffer
	bin := egaroucidtest.Install(t, "hogslow 400")
	pool := newEgaroucidPool(bin, settings.Default(), pi3, engines.Shared(&namedEngine{name: "builtin"}), testLogger(&logs))
	require.NotNil(t, pool)
	defer pool.Close()
	pool.Probe(context.Background())
	require.Eventually(t, func() bool { return pool.Refused() != nil }, 20*time.Second, 10*time.Millisecond)
	assert.ErrorIs(t, pool.Refused(), egaroucid.ErrOverShare)
	assert.Equal(t, 1, countOf(&logs, "Egaroucid refused"), logs.String())
	assert.Contains(t, logs.String(), "while starting")
	require.Eventually(t, func() bool { return fakeProcesses(t, bin) == 0 }, 5*time.Second, 20*time.Millisecond)
}

// TestTwoStdMatchesOnA1GBPi is the case: a 1 GB Pi (906 MiB, 4
// cores) with the default two matches at once and Egaroucid for std. Two
// std matches at once against the local arena: the first plays both legs
// with Egaroucid (the fake binary, 20 ms a move), the second both with
// the built-in engine; never more than two Egaroucid processes; when the
// matches are over the slots are free and the next std match gets the same
// two processes, warm.
func TestTwoStdMatchesOnA1GBPi(t *testing.T) {
	if testing.Short() {
		t.Skip("plays three std matches in real time (about 20 s); skipped with -short")
	}
	srv, apiURL := startArena(t, arena.Config{
		Bots: []arena.BotConfig{
			{Name: "PiBot", Token: tokA, Modes: othello.AllModes()},
			{Name: "Greedy1", Builtin: true, Level: 1, Modes: othello.AllModes()},
			{Name: "Greedy2", Builtin: true, Level: 1, Modes: othello.AllModes()},
		},
		ClockPerLeg:   15 * time.Second,
		SearchThreads: 1,
	}, 20*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var logs syncBuffer
	bin := egaroucidtest.Install(t, "think 20")
	s := settings.Default()
	s.Engines["std"] = settings.EngineEgaroucid
	s.Threads = 1
	require.Equal(t, 2, s.MaxMatches, "the default")
	// Every stderr line of the fake is counted below: a budget that
	// refills before each line lets them all through.
	log := proc.WithStderrBudget(testLogger(&logs), &aMinuteACall{Clock: clock.System(), t: time.Now()})
	player := newBotPlayer(botPlayerConfig{APIURL: apiURL, Egaroucid: bin, CPU: "test", Logger: log, Machine: pi3})

	// The most fake Egaroucid processes at once. (How many were started is
	// counted from their first stderr line, below: a watcher that samples
	// /proc can miss the start-up check's short-lived process on a busy
	// machine, and did in CI.)
	var (
		mu   sync.Mutex
		most int
	)
	watch, stopWatch := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for watch.Err() == nil {
			pids := fakePIDs(bin)
			mu.Lock()
			most = max(most, len(pids))
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
		}
	}()
	defer func() { stopWatch(); <-watched }()
	var online atomic.Bool
	done := make(chan error, 1)
	go func() {
		done <- player.Play(ctx, mustToken(t, tokA), s, func(st bot.Status) { online.Store(st.Online()) })
	}()
	require.Eventually(t, online.Load, 10*time.Second, 10*time.Millisecond, "the bot goes online")

	first, err := srv.Challenge("Greedy1", "PiBot", othello.Std)
	require.NoError(t, err)
	waitLog(t, &logs, fmt.Sprintf(`msg="std match plays with Egaroucid" match=%d`, first))
	second, err := srv.Challenge("Greedy2", "PiBot", othello.Std)
	require.NoError(t, err)
	waitLog(t, &logs, fmt.Sprintf(`every Egaroucid slot is taken by another match" match=%d`, second))
	r, ok := srv.Result(first)
	require.True(t, ok)
	require.False(t, r.Ended, "the two matches overlap")
	for _, id := range []int64{first, second} {
		require.Eventually(t, func() bool { r, ok := srv.Result(id); return ok && r.Ended }, 2*time.Minute, 50*time.Millisecond)
		r, _ := srv.Result(id)
		assert.Equal(t, "finished", r.Status, "match %d: %+v", id, r)
	}
	assert.Equal(t, 1, strings.Count(logs.String(), "every Egaroucid slot is taken"), "logged once")
	assert.Equal(t, 2, fakeProcesses(t, bin), "kept running between matches")

	third, err := srv.Challenge("Greedy2", "PiBot", othello.Std)
	require.NoError(t, err)
	waitLog(t, &logs, fmt.Sprintf(`msg="std match plays with Egaroucid" match=%d`, third))
	require.Eventually(t, func() bool { r, ok := srv.Result(third); return ok && r.Ended }, 2*time.Minute, 50*time.Millisecond)
	stopWatch()
	<-watched
	// Under load (the race detector, a busy machine) a move may miss its
	// planned time: the adapter then kills that process and the next move
	// starts a new one in the same slot. Such restarts are counted, and
	// logged here; on an idle machine there are none.
	lines := strings.Split(logs.String(), "\n")
	restarts := 0
	for _, l := range lines {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			t.Log(l)
		}
		if strings.Contains(l, "gave no answer in time; killing it") {
			restarts++
		}
	}
	mu.Lock()
	assert.Equal(t, 2, most, "never more Egaroucid processes than its two slots")
	mu.Unlock()
	// The fake writes egaroucidtest.StartLine to stderr at every start, and
	// stderr goes to the log.
	assert.Equal(t, 3+restarts, strings.Count(logs.String(), egaroucidtest.StartLine),
		"processes started: the start-up check's, then two (and one per restart): the third match got them warm")
	// Egaroucid (the fake echoes each settime on stderr) played every
	// engine move of the first and third matches and none of the second.
	engineMoves := map[int64]int{}
	for _, l := range lines {
		for _, id := range []int64{first, second, third} {
			// The short move line names the source only when it is not
			// the engine.
			if strings.Contains(l, fmt.Sprintf("msg=move match=%d ", id)) && !strings.Contains(l, "source=") {
				engineMoves[id]++
			}
		}
	}
	assert.Positive(t, engineMoves[second], "the built-in engine played the second match")
	assert.Equal(t, 1+engineMoves[first]+engineMoves[third]+restarts, strings.Count(logs.String(), "got settime"),
		"Egaroucid's moves: the start-up check's, those of the first and third matches (%v), and those that missed their time (%d)", engineMoves, restarts)

	cancel()
	require.NoError(t, <-done)
	require.Eventually(t, func() bool { return fakeProcesses(t, bin) == 0 }, 5*time.Second, 20*time.Millisecond,
		"no Egaroucid outlives the player")
	assert.NotContains(t, logs.String(), tokA)
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "std match plays") || strings.Contains(l, "Egaroucid sized") {
			t.Log(l)
		}
	}
}

func waitLog(t *testing.T, logs *syncBuffer, s string) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), s) }, 30*time.Second, 10*time.Millisecond,
		"log line %q; log:\n%s", s, logs)
}

// lowMemoryEnv names a low-memory Egaroucid build (the recipe of make
// egaroucid, built for this machine; engines/README.md) for
// TestRealLowMemoryEgaroucidOnA1GBPi.
const lowMemoryEnv = "FLIPBOT_EGAROUCID_LOWMEM"

// TestRealStockEgaroucidRefusedOnA1GBPi: the stock Egaroucid 7.8 that
// FLIPBOT_EGAROUCID names (1.33 GiB at start) on a 1 GB Pi is refused when
// the player starts, before any match, and killed before it takes the
// memory.
func TestRealStockEgaroucidRefusedOnA1GBPi(t *testing.T) {
	bin := egaroucidtest.Real(t)
	if testing.Short() {
		t.Skip("starts the real Egaroucid; skipped with -short")
	}
	var logs syncBuffer
	pool := newEgaroucidPool(bin, settings.Default(), pi3, engines.Shared(&namedEngine{name: "builtin"}), testLogger(&logs))
	require.NotNil(t, pool)
	defer pool.Close()
	pool.Probe(context.Background())
	require.Eventually(t, func() bool { return pool.Refused() != nil }, time.Minute, 10*time.Millisecond)
	t.Log(pool.Refused())
	assert.Equal(t, 1, countOf(&logs, "Egaroucid refused"))
	live, _ := pool.Counts()
	assert.Zero(t, live, "every Egaroucid closed (other tests may run the same binary: no process count here)")
}

// TestRealLowMemoryEgaroucidOnA1GBPi runs the real low-memory Egaroucid as
// the appliance would on a 1 GB Pi with two matches at once: one std
// match, both legs, sized by the pool (-hash 20); both processes answer a
// move, are not refused, and their measured peak resident sizes are each
// inside the share and together inside the bound.
func TestRealLowMemoryEgaroucidOnA1GBPi(t *testing.T) {
	bin := os.Getenv(lowMemoryEnv)
	if bin == "" {
		t.Skipf("SKIPPED: set %s to a low-memory Egaroucid build (engines/README.md, External engines)", lowMemoryEnv)
	}
	if testing.Short() {
		t.Skip("starts the real Egaroucid twice (10–30 s); skipped with -short")
	}
	var logs syncBuffer
	s := settings.Default()
	builtin := &namedEngine{name: "builtin", modes: othello.AllModes()}
	pool := newEgaroucidPool(bin, s, pi3, engines.Shared(builtin), testLogger(&logs))
	require.NotNil(t, pool)
	defer pool.Close()
	plan := sizing.Egaroucid(pi3, pool.Slots())
	pool.Probe(context.Background()) // as the player does: the first one checked
	m := openStd(t, builtin, pool, 1)
	defer m.Close()
	errs := make(chan error, 2)
	for leg := range 2 {
		go func() {
			req := engines.Request{Position: othello.New(othello.Std), Remaining: time.Minute, Budget: 10 * time.Second,
				Leg: leg}
			var err error
			for try := 0; try < 6; try++ { // a start-up past the allowance is waited for again
				var r engines.Result
				if r, err = m.Move(context.Background(), leg, req); err == nil && r.Move != builtinMove {
					break
				}
			}
			errs <- err
		}()
	}
	for range 2 {
		require.NoError(t, <-errs)
	}
	require.NoError(t, pool.Refused())
	pids := fakePIDs(bin)
	require.Len(t, pids, 2)
	var total uint64
	for _, pid := range pids {
		mem, err := proc.ReadMemory(pid)
		require.NoError(t, err)
		t.Logf("pid %d: peak %d MiB, resident %d MiB (share %d MiB, refused past %d MiB)", pid, mem.Peak>>20, mem.RSS>>20,
			plan.Share>>20, egaroucid.OverShareLimit(plan.Share)>>20)
		assert.LessOrEqual(t, mem.Peak, plan.Share)
		total += mem.Peak
	}
	t.Logf("together: peak %d MiB; bound %d MiB (hash level %d, %d threads each)", total>>20, pi3.Bound()>>20, plan.Table, plan.Threads)
	assert.LessOrEqual(t, total, pi3.Bound())
}

// aMinuteACall is a clock a minute later at every reading (its timers are
// the system's): an engine stderr budget on it refills before every line.
type aMinuteACall struct {
	clock.Clock
	mu sync.Mutex
	t  time.Time
}

func (c *aMinuteACall) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Minute)
	return c.t
}
