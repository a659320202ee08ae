package egaroucid

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/egaroucid/egaroucidtest"
	"flipbot.dev/flipbot/engines/internal/adapt"
	"flipbot.dev/flipbot/engines/internal/enginetest"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/timeplan"
)

// install lays out a fake Egaroucid: dir/Egaroucid_for_Console.out (a
// link to this test binary) and dir/resources/.
func install(t *testing.T, resources bool) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	bin := filepath.Join(dir, "Egaroucid_for_Console.out")
	require.NoError(t, os.Symlink(exe, bin))
	if resources {
		require.NoError(t, os.Mkdir(filepath.Join(dir, "resources"), 0o755))
	}
	return bin
}

func newFake(t *testing.T, log *enginetest.Log, fake ...string) *Engine {
	t.Helper()
	var opts Options
	if log != nil {
		opts.Logger = log.Logger()
	}
	return newFakeWith(t, opts, fake...)
}

func newFakeWith(t *testing.T, opts Options, fake ...string) *Engine {
	t.Helper()
	opts.Path = install(t, true)
	if len(fake) > 0 {
		opts.ExtraArgs = append([]string{"-fake"}, fake...)
	}
	e, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

var request = enginetest.Request

func first(pos othello.Position) int { return pos.LegalMoves()[0] }

func TestAnswers(t *testing.T) {
	positions := enginetest.Positions(t, 5)
	tests := []struct {
		name  string
		fake  []string
		wantE bool
	}{
		{"plain", nil, false},
		{"with value", []string{"showvalue"}, false},
		{"error lines skipped", []string{"garbage"}, false},
		{"illegal", []string{"illegal"}, true},
		{"crash", []string{"crash"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			enginetest.NoLeak(t)
			var log enginetest.Log
			e := newFake(t, &log, tc.fake...)
			for i, pos := range positions {
				res, err := e.Move(context.Background(), request(pos, 5*time.Second))
				if tc.wantE {
					require.Error(t, err, "position %d", i)
					continue
				}
				require.NoError(t, err, "position %d", i)
				assert.Equal(t, first(pos), res.Move, "position %d", i)
			}
			if !tc.wantE {
				starts, crashes := e.Stats()
				assert.Equal(t, 1, starts)
				assert.Zero(t, crashes)
				assert.True(t, log.Contains("got settime X"), "settime reaches the engine")
			}
			require.NoError(t, e.Close())
		})
	}
}

func TestValueIsTheScore(t *testing.T) {
	e := newFake(t, nil, "showvalue")
	res, err := e.Move(context.Background(), request(othello.New(othello.Std), 5*time.Second))
	require.NoError(t, err)
	assert.InDelta(t, 3.0, res.Score, 1e-9)
}

func TestKilledAtTheCapAndRestarted(t *testing.T) {
	enginetest.NoLeak(t)
	e := newFake(t, nil, "slowstart")
	// Ready first: a 300 ms move would wait for a start-up only its
	// planned 50 ms.
	require.NoError(t, e.Warm(context.Background()))
	positions := enginetest.Positions(t, 2) // the first is the starting position
	_, err := e.Move(context.Background(), request(positions[0], 300*time.Millisecond))
	require.ErrorIs(t, err, adapt.ErrTimeout)
	assert.False(t, e.slot.Running(), "killed at the cap")
	res, err := e.Move(context.Background(), request(positions[1], 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(positions[1]), res.Move)
	starts, _ := e.Stats()
	assert.Equal(t, 2, starts)
	require.NoError(t, e.Close())
}

func TestCancel(t *testing.T) {
	enginetest.NoLeak(t)
	e := newFake(t, nil, "slow")
	ctx, cancel := context.WithCancel(context.Background())
	done := enginetest.MoveInBackground(t, ctx, e)
	cancel()
	err := <-done
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
	require.NoError(t, e.Close())
}

func TestStdOnlyAndSetup(t *testing.T) {
	e := newFake(t, nil)
	assert.True(t, e.Supports(othello.Std))
	assert.False(t, e.Supports(othello.Reversi))
	assert.Equal(t, "Egaroucid", e.Name())
	_, err := e.Move(context.Background(), request(othello.New(othello.Anti), time.Second))
	require.ErrorIs(t, err, ErrMode)

	_, err = New(Options{})
	require.Error(t, err)
	_, err = New(Options{Path: filepath.Join(t.TempDir(), "none")})
	require.Error(t, err)

	var log enginetest.Log
	noRes, err := New(Options{Path: install(t, false), Logger: log.Logger()})
	require.NoError(t, err)
	defer noRes.Close()
	assert.True(t, log.Contains("no resources/"))
	_, err = noRes.Move(context.Background(), request(othello.New(othello.Std), 2*time.Second))
	require.Error(t, err, "the fake, like Egaroucid, fails without resources/")
}

func TestSettimeSeconds(t *testing.T) {
	pos := othello.New(othello.Std)
	req := engines.Request{Position: pos, Remaining: 60 * time.Second, Budget: 10 * time.Second}
	s := SettimeSeconds(req, DefaultMargin)
	assert.LessOrEqual(t, Allotment(time.Duration(s)*time.Second, 60), adapt.ThinkTime(req, DefaultMargin))
	endgame := engines.Request{Position: withEmpties(t, 20), Remaining: 30 * time.Second, Budget: 10 * time.Second}
	assert.Less(t, SettimeSeconds(endgame, DefaultMargin), 20, "not the whole clock for an endgame solve")
	req.Remaining, req.Budget = 300*time.Millisecond, 200*time.Millisecond
	assert.Equal(t, 1, SettimeSeconds(req, DefaultMargin), "never below 1 s")

	// Whatever the position and the clock, the modelled allotment of the
	// chosen clock fits in the planned think time and under the cap, and
	// one second more would not (unless the whole clock already fits).
	for _, p := range enginetest.Positions(t, 50) {
		for _, remaining := range []time.Duration{5 * time.Second, 20 * time.Second, 60 * time.Second, 200 * time.Second} {
			for _, budget := range []time.Duration{time.Second, 3 * time.Second, 10 * time.Second} {
				req := engines.Request{Position: p, Remaining: remaining, Budget: min(budget, remaining)}
				s, planned := plan(req, DefaultMargin)
				empties := adapt.Empties(req)
				ceiling := min(req.Budget-DefaultMargin, adapt.ThinkTime(req, DefaultMargin))
				assert.Equal(t, Allotment(time.Duration(s)*time.Second, empties), planned)
				if s > 1 {
					assert.LessOrEqual(t, Allotment(time.Duration(s)*time.Second, empties), ceiling, "empties %d remaining %v budget %v", empties, remaining, budget)
				}
				whole := int((remaining - timeplan.Reserve(timeplan.Count(p), 0)) / time.Second)
				assert.LessOrEqual(t, s, max(1, whole))
			}
		}
	}
}

// TestShortClockPlan plays the mover's half of a game on a 20 s clock
// (the clock of the fallbacks), each move taking as long as the
// planned allotment of its settime plus the planner's default overhead: the
// clock never falls under the bot's 750 ms fallback margin.
func TestShortClockPlan(t *testing.T) {
	for _, clock := range []time.Duration{20 * time.Second, 60 * time.Second} {
		remaining := clock
		pos := othello.New(othello.Std)
		for !pos.GameOver() {
			legal := pos.LegalMoves()
			if len(legal) > 1 && pos.Turn == othello.Black {
				budget := min(10*time.Second, remaining-750*time.Millisecond)
				require.Positive(t, budget, "clock %v: fallback territory at %d empties", clock, 64-pos.Black.Count()-pos.White.Count())
				_, planned := plan(engines.Request{Position: pos, Remaining: remaining, Budget: budget}, DefaultMargin)
				remaining -= min(planned, budget) + timeplan.DefaultOverhead
			}
			mv := othello.Pass
			if len(legal) > 0 {
				mv = legal[len(legal)/2]
			}
			next, err := pos.Play(mv)
			require.NoError(t, err)
			pos = next
		}
		assert.Greater(t, remaining, 750*time.Millisecond, "clock %v", clock)
	}
}

func TestTableAnswer(t *testing.T) {
	e := newFake(t, nil)
	for i, pos := range enginetest.Positions(t, 3) {
		res, err := e.Move(context.Background(), request(pos, 5*time.Second))
		require.NoError(t, err, "position %d", i)
		assert.Equal(t, first(pos), res.Move)
		assert.InDelta(t, -2.0, res.Score, 1e-9, "the Score column")
		assert.Equal(t, 20, res.Depth, "the Depth column")
		assert.False(t, res.Exact, "depth 20 of %d empties is not exact", 64-pos.Black.Count()-pos.White.Count())
		assert.Equal(t, uint64(123456), res.Nodes)
	}
}

func TestStartupAllowance(t *testing.T) {
	enginetest.NoLeak(t)
	loading := newFakeWith(t, Options{Startup: 5 * time.Second}, "loading")
	require.NoError(t, loading.Start())
	res, err := loading.Move(context.Background(), request(othello.New(othello.Std), 10*time.Second))
	require.NoError(t, err, "a slow start within the allowance is waited for")
	assert.Equal(t, first(othello.New(othello.Std)), res.Move)
	require.NoError(t, loading.Close())

	deaf := newFakeWith(t, Options{Startup: 200 * time.Millisecond}, "deaf")
	_, err = deaf.Move(context.Background(), request(othello.New(othello.Std), time.Minute))
	require.ErrorIs(t, err, errNotReady, "the wait for a start-up is its allowance, not the budget")
	assert.Contains(t, err.Error(), "start-up allowance of 200ms")
	starts, crashes := deaf.Stats()
	assert.Equal(t, [2]int{1, 0}, [2]int{starts, crashes}, "a process still loading is kept for the next move")
	require.NoError(t, deaf.Close())
}

func TestAnswerWaitIsThePlan(t *testing.T) {
	enginetest.NoLeak(t)
	e := newFake(t, nil, "slow")
	// A minute's budget, but the plan for the first move of a 60 s clock
	// is a few seconds: the adapter gives up then, not at the budget.
	req := engines.Request{Position: othello.New(othello.Std), Remaining: 60 * time.Second, Budget: time.Minute}
	_, planned := plan(req, DefaultMargin)
	require.Less(t, planned, 5*time.Second)
	_, err := e.Move(context.Background(), req)
	require.ErrorIs(t, err, adapt.ErrTimeout)
	assert.Contains(t, err.Error(), "within the planned")
	require.NoError(t, e.Close())
}

func TestAllotment(t *testing.T) {
	// Midgame with a full clock: a share of it.
	mid := Allotment(58*time.Second, 48)
	assert.Greater(t, mid, time.Second)
	assert.Less(t, mid, 5*time.Second)
	// Endgame: most of the rest goes into a solve.
	end := Allotment(30*time.Second, 20)
	assert.Greater(t, end, 10*time.Second)
	// Less clock, less time.
	assert.Less(t, Allotment(10*time.Second, 48), mid)
}

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		in   string
		want Answer
		ok   bool
	}{
		{"f5", Answer{Move: 37}, true},
		{"> f5", Answer{Move: 37}, true},
		{"> > > F5", Answer{Move: 37}, true},
		{"> ps", Answer{Move: othello.Pass}, true},
		{"pass", Answer{Move: othello.Pass}, true},
		{"d3 -4", Answer{Move: 19, Value: -4, HasValue: true}, true},
		{"d3 x", Answer{Move: 19}, true},
		{"> ", Answer{}, false},
		{"[ERROR] command `x` not found", Answer{}, false},
		{"i9", Answer{}, false},
		{"time limit: 100", Answer{}, false},
		{"> > |          Level|          Depth|           Move|          Score|           Time|          Nodes|            NPS|", Answer{}, false},
		{"|              -|        13@100%|             e6|             +0|  000:00:00.546|         386981|         708756|",
			Answer{Move: 44, Value: 0, HasValue: true, Depth: 13, Probability: 100, Time: 546 * time.Millisecond, Nodes: 386981}, true},
		{"|             21|         21@98%|             f5|            -12|  000:01:02.500|             77|              1|",
			Answer{Move: 37, Value: -12, HasValue: true, Depth: 21, Probability: 98, Time: 62500 * time.Millisecond, Nodes: 77}, true},
		{"|              -|              -|             ps|              -|  000:00:00.000|              0|              0|", Answer{Move: othello.Pass}, true},
		{"|           Book|              -|             c4|             +1|  000:00:00.001|              0|              0|",
			Answer{Move: 26, Value: 1, HasValue: true, Time: time.Millisecond}, true},
		{"|  -| 99@100%| a1| +9999| 1:2| x| y|", Answer{Move: 0}, true},
		{"| a | b |", Answer{}, false},
	}
	for _, tc := range tests {
		got, ok := ParseAnswer(tc.in)
		assert.Equal(t, tc.ok, ok, tc.in)
		if tc.ok {
			assert.Equal(t, tc.want, got, tc.in)
		}
	}
}

func TestBoardString(t *testing.T) {
	s, err := BoardString(othello.New(othello.Std))
	require.NoError(t, err)
	assert.Equal(t, "---------------------------OX------XO---------------------------X", s)
	_, err = BoardString(othello.New(othello.Grand))
	require.Error(t, err)
}

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{"f5", "> > ps", "d3 -4.5", "[ERROR] x", ">", "h8 1e308",
		"|              -|        13@100%|             e6|             +0|  000:00:00.546|         386981|         708756|",
		"|-|-|ps|-|000:00:00.000|0|0|", "|1@|a1|+|::|"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := ParseAnswer(s)
		if !ok {
			return
		}
		if a.Move != othello.Pass && (a.Move < 0 || a.Move >= 64) {
			t.Fatalf("%q: move %d off the board", s, a.Move)
		}
		if a.HasValue && (a.Value != a.Value || a.Value <= -1000 || a.Value >= 1000) {
			t.Fatalf("%q: value %v", s, a.Value)
		}
		if a.Depth < 0 || a.Depth > 60 || a.Probability < 0 || a.Probability > 100 || a.Time < 0 {
			t.Fatalf("%q: depth %d@%d%% time %v", s, a.Depth, a.Probability, a.Time)
		}
	})
}

func TestStartAhead(t *testing.T) {
	e := newFake(t, nil)
	require.NoError(t, e.Start())
	pos := othello.New(othello.Std)
	res, err := e.Move(context.Background(), request(pos, 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(pos), res.Move)
	starts, _ := e.Stats()
	assert.Equal(t, 1, starts)
}

// withEmpties returns a std position (not necessarily reachable) with the
// given number of empty squares, black to move.
func withEmpties(t *testing.T, empties int) othello.Position {
	t.Helper()
	pos := othello.New(othello.Std)
	var filled othello.Bits
	for sq := 0; sq < 64 && 64-filled.Count() > empties; sq++ {
		filled = filled.Or(othello.Bit(sq))
	}
	pos.Black, pos.White = filled, othello.Bits{}
	return pos
}

// TestSlowStartIsKeptAcrossMoves: a program that takes longer to become
// ready than a move's budget (Egaroucid's stock build: 5 s and more, the
// first move of a 60 s clock: about 4 s) is started ahead of the match.
// Each move made while it loads stops waiting shortly before its budget
// ends, in time for the caller's fallback, with an error wrapping
// engines.ErrNotReady, and leaves the process loading; the first move
// after it is ready is answered by that same process.
func TestSlowStartIsKeptAcrossMoves(t *testing.T) {
	enginetest.NoLeak(t)
	e := newFake(t, nil, "startup 5000")
	require.NoError(t, e.Start())
	req := engines.Request{Position: othello.New(othello.Std), Remaining: 60 * time.Second, Budget: 4 * time.Second}
	enginetest.SlowStartKept(t, e, req, req.Budget-adapt.ReadyMargin, e.slot.Running, first(req.Position))
}

// TestStartupWaitIsTakenFromThePlan: a move that waited for the start-up
// plans Egaroucid's clock on what is left of its budget, so that the
// answer still comes inside it.
func TestStartupWaitIsTakenFromThePlan(t *testing.T) {
	enginetest.NoLeak(t)
	var log enginetest.Log
	e := newFake(t, &log, "startup 2500")
	require.NoError(t, e.Start())
	started := time.Now()
	req := engines.Request{Position: othello.New(othello.Std), Remaining: 120 * time.Second, Budget: 6 * time.Second}
	res, err := e.Move(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, first(req.Position), res.Move)
	waited := time.Since(started) - res.Elapsed
	require.GreaterOrEqual(t, waited, 2500*time.Millisecond)
	var m []string // the fake echoes settime on stderr, which is read on its own
	require.Eventually(t, func() bool {
		m = regexp.MustCompile(`got settime X (\d+)`).FindStringSubmatch(log.String())
		return m != nil
	}, 5*time.Second, 10*time.Millisecond, "settime reaches the engine")
	settime, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	allotted := Allotment(time.Duration(settime)*time.Second, adapt.Empties(req))
	// waited is measured around the whole call, so it over-counts the wait
	// the engine planned on by the call's own overhead (CI once saw 34 µs
	// against a whole-millisecond allotment); a plan that ignored the
	// 2.5 s wait would miss by seconds.
	const slack = 5 * time.Millisecond
	assert.LessOrEqual(t, allotted, req.Budget-waited-DefaultMargin+slack,
		"settime %d s after a %v wait: its allotment %v fits in what is left of the %v budget", settime, waited, allotted, req.Budget)
}

func TestEnvAsksForHugePages(t *testing.T) {
	var log enginetest.Log
	e := newFake(t, &log)
	_, err := e.Move(context.Background(), request(othello.New(othello.Std), 5*time.Second))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return log.Contains("env " + HugePages) }, 5*time.Second, 10*time.Millisecond,
		"the process gets %s; log:\n%s", HugePages, &log)

	parent := []string{"PATH=/bin", "FS_BOT_TOKEN=fsbm_x", "GLIBC_TUNABLES=glibc.malloc.arena_max=2"}
	assert.Equal(t, []string{"PATH=/bin", HugePages}, Env(parent), "the owner's tunables pass only when listed")
	parent = append(parent, "FLIPBOT_ENGINE_ENV=GLIBC_TUNABLES")
	assert.Equal(t, []string{"PATH=/bin", "GLIBC_TUNABLES=glibc.malloc.arena_max=2"}, Env(parent), "and then win")
}

// A process that dies on its move and whose replacement is still loading
// when the move's wait ends: the error is the death (with the exit), not
// only "still starting", so that the owner and the start-up check learn
// what happened. (Under load the replacement's start-up took the rest of
// the wait and the crash was reported as a slow start.)
func TestCrashIsTheCauseWhenTheReplacementIsStillLoading(t *testing.T) {
	enginetest.NoLeak(t)
	opts := Options{Path: install(t, true), Startup: 5 * time.Second}
	behaviour := filepath.Join(filepath.Dir(opts.Path), egaroucidtest.BehaviourFile)
	require.NoError(t, os.WriteFile(behaviour, []byte("crash\n"), 0o644))
	e, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	require.NoError(t, e.Warm(context.Background()))
	// The next process (the replacement) reads this at its start.
	require.NoError(t, os.WriteFile(behaviour, []byte("deaf\n"), 0o644))
	_, err = e.Move(context.Background(), request(othello.New(othello.Std), 2*time.Second))
	require.Error(t, err)
	assert.ErrorIs(t, err, errEOF, "the death is the cause: %v", err)
	assert.Contains(t, err.Error(), "exit")
	assert.Contains(t, err.Error(), "its replacement", "and the replacement's state is said")
	require.NoError(t, e.Close())
}
