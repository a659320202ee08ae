package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/timeplan"
	"flipbot.dev/flipbot/flipsight"
)

// fakeQuick is a scripted engines.QuickMover: it answers the last legal
// move at depth 9 (a depth no other engine of these tests reports), or
// hangs past its think when told, and notes the thinks it was given.
type fakeQuick struct {
	hang bool
	// spend makes every answer take its whole think (a search).
	spend bool

	mu     sync.Mutex
	thinks []time.Duration
}

func (q *fakeQuick) QuickMove(ctx context.Context, pos othello.Position, think time.Duration) (engines.Result, error) {
	q.mu.Lock()
	q.thinks = append(q.thinks, think)
	q.mu.Unlock()
	switch {
	case q.hang:
		<-ctx.Done()
		time.Sleep(300 * time.Millisecond) // ignores its deadline, too
	case q.spend:
		time.Sleep(think)
	}
	legal := pos.LegalMoves()
	if len(legal) == 0 {
		return engines.Result{Move: othello.Pass}, nil
	}
	return engines.Result{Move: legal[len(legal)-1], Depth: 9, Score: 1.5}, nil
}

func (q *fakeQuick) given() []time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]time.Duration(nil), q.thinks...)
}

// fallbackLines returns the bot's "move detail" lines of fallbacks.
func fallbackLines(logs string) []string {
	var out []string
	for l := range strings.SplitSeq(logs, "\n") {
		if strings.Contains(l, "msg=\"move detail\"") && strings.Contains(l, "source=fallback") {
			out = append(out, l)
		}
	}
	return out
}

// playWithQuick plays one std match against the house bot with an engine
// that behaves as told (fakeEngine's behave, delay 20 ms), q as the quick
// engine, the given clock and cap; it requires the match to end by discs.
func playWithQuick(t *testing.T, behave string, q *fakeQuick, clock, maxThink time.Duration) *botRun {
	t.Helper()
	fs := newFakeServer(t, serverOpts{clock: clock})
	f := factoryOf(&fakeEngine{behave: behave, delay: 20 * time.Millisecond}, PerLeg)
	f.Quick = q
	br := startBot(t, fs, f, func(o *Options, _ *flipsight.Config) { o.MaxThink = maxThink })
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Std)
	requireFinishedByDiscs(t, fs.waitResult(t, id, 60*time.Second))
	return br
}

// TestQuickEngineMakesTheFallbacks: with Engines.Quick set, every fallback
// — the engine hanging, failing, answering an illegal move, and the clock
// plan's panic mode on a short clock — is the quick engine's move, asked
// for a quick think of at most MinThink, and the match ends by discs.
func TestQuickEngineMakesTheFallbacks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		behave string
		clock  time.Duration
		cause  string
	}{
		{"the engine hangs", "hang", 20 * time.Second, CauseTimeout},
		{"the engine fails", "error", 20 * time.Second, CauseFailed},
		{"the engine answers an illegal move", "illegal", 20 * time.Second, CauseIllegal},
		// 3 s for some 30 moves: the reserve is most of the clock.
		{"the panic mode", "slow", 3 * time.Second, CauseNoTime},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if testing.Short() && tc.behave != "hang" && tc.behave != "slow" {
				t.Skip("the short run tests the hanging engine and the panic mode")
			}
			q := &fakeQuick{}
			br := playWithQuick(t, tc.behave, q, tc.clock, 30*time.Millisecond)
			lines := fallbackLines(br.logs.String())
			var ofCause, quick int
			for _, l := range lines {
				if strings.Contains(l, "depth=9") {
					quick++
				}
				if strings.Contains(l, "cause="+tc.cause) {
					ofCause++
				}
			}
			require.Positive(t, ofCause, "fallbacks of cause %s", tc.cause)
			thinks := q.given()
			require.NotEmpty(t, thinks, "the quick engine was asked")
			for _, d := range thinks {
				assert.Positive(t, d)
				assert.LessOrEqual(t, d, timeplan.MinThink)
			}
			// Every ask is a fallback sent with the quick engine's move (but
			// for one the leg's end may drop); the others (no time to think
			// at all) are one ply.
			assert.LessOrEqual(t, quick, len(thinks))
			assert.GreaterOrEqual(t, quick, len(thinks)-2, "fallbacks by the quick engine:\n%s", strings.Join(lines, "\n"))
			t.Logf("%d fallbacks, %d by the quick engine, thinks %v", len(lines), quick, thinks)
		})
	}
}

// TestAHangingQuickEngineCostsItsThinkOnly: a quick engine that never
// answers in time costs each fallback its think and quickGrace, and the
// bot plays its one-ply move: the leg ends by discs, whatever the engine
// and the quick engine do.
func TestAHangingQuickEngineCostsItsThinkOnly(t *testing.T) {
	t.Parallel()
	q := &fakeQuick{hang: true}
	br := playWithQuick(t, "hang", q, 10*time.Second, 30*time.Millisecond)
	lines := fallbackLines(br.logs.String())
	require.NotEmpty(t, lines)
	require.NotEmpty(t, q.given(), "the quick engine was asked")
	for _, l := range lines {
		assert.NotContains(t, l, "depth=9", "a late quick answer was not played")
	}
}

// TestAQuickSearchIsNotOverhead: the time a fallback's quick search takes
// is think, not per-move overhead: the overhead the bot measures for
// those moves stays under the 50 ms each search takes, which it would
// exceed every time were the search counted (the reserve of every move
// left would rise and push the clock into the panic mode). The unit test
// of the sum is TestMoveOverhead's.
func TestAQuickSearchIsNotOverhead(t *testing.T) {
	t.Parallel()
	q := &fakeQuick{spend: true}
	br := playWithQuick(t, "error", q, 30*time.Second, 200*time.Millisecond)
	var overheads []int
	for _, l := range fallbackLines(br.logs.String()) {
		if !strings.Contains(l, "depth=9") {
			continue
		}
		var o int
		if i := strings.Index(l, "overhead_ms="); i >= 0 {
			if _, err := fmt.Sscanf(l[i:], "overhead_ms=%d", &o); err == nil {
				overheads = append(overheads, o)
			}
		}
	}
	require.GreaterOrEqual(t, len(overheads), 10, "quick moves measured")
	for _, d := range q.given() {
		require.Equal(t, timeplan.MinThink, d, "a fallback with a plan thinks 50 ms")
	}
	slices.Sort(overheads)
	assert.Less(t, overheads[len(overheads)/2], int(timeplan.MinThink/time.Millisecond),
		"the median overhead of a quick move, ms: %v", overheads)
}
