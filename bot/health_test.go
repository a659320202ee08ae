package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// TestFailingEngineStopsTheBotAccepting: an engine that fails on every own
// move is told once a match at the default level with what happened, the
// match ends with one line counting the moves by source and fallback
// cause, the counts are in the status, and after failingAfter failures in
// a row the bot accepts no new match, says why, reports the engine as
// failing in the environment, and accepts again once a probe passes.
func TestFailingEngineStopsTheBotAccepting(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{clock: 10 * time.Second})
	rec := newRecorder(t, fs)
	var healthy atomic.Bool
	var probes atomic.Int32
	eng := &fakeEngine{behave: "error"}
	br := startBot(t, fs, factoryOf(eng, PerLeg), func(o *Options, c *flipsight.Config) {
		c.APIURL = rec.apiURL()
		o.Timing.ProbeEvery = 100 * time.Millisecond
		o.Probe = func(context.Context) error {
			probes.Add(1)
			if healthy.Load() {
				return nil
			}
			return errors.New("exited with exit status 139")
		}
	})
	waitOnline(t, fs, br)
	first := challenge(t, fs, "house", othello.Std)
	waitFor(t, 10*time.Second, "the engine taken as failing", func() bool { return br.bot.Status().EngineFailing != "" })
	st := br.bot.Status()
	require.Len(t, st.Matches, 1)
	assert.GreaterOrEqual(t, st.Matches[0].Moves.Fallbacks[CauseFailed], failingAfter, "the counts in the status")
	r := fs.waitResult(t, first, 40*time.Second)
	require.True(t, r.Ended)
	waitFor(t, 5*time.Second, "the result", func() bool { return len(br.bot.Status().Results) == 1 })
	res := br.bot.Status().Results[0]
	assert.Zero(t, res.Moves.Engine)
	assert.Positive(t, res.Moves.Fallbacks[CauseFailed])

	logs := br.logs.String()
	// Under load the clock can also fall to the reserve (cause no_time):
	// each cause is told once at the default level, the rest at debug.
	warned := map[string]int{}
	for _, m := range regexp.MustCompile(`level=WARN msg="playing a fallback move" .*?cause=(\w+)`).FindAllStringSubmatch(logs, -1) {
		warned[m[1]]++
	}
	assert.Equal(t, 1, warned[CauseFailed], "the first fallback of its cause in the match at the default level, the rest at debug")
	for cause, n := range warned {
		assert.Equal(t, 1, n, "cause %s told once at the default level", cause)
	}
	assert.Contains(t, logs, `cause=failed reason="engine failed" err="engine crashed"`)
	assert.Contains(t, logs, "engine failing: accepting no new matches")
	assert.Regexp(t, `msg="match finished".* moves="0 engine, \d+ forced, \d+ fallback \(failed \d+[^)]*\)"`, logs)
	waitFor(t, 5*time.Second, "the environment report", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return strings.HasSuffix(rec.engineEnv, failingSuffix)
	})

	// A new challenge waits while the probe fails…
	second := challenge(t, fs, "house", othello.Std)
	waitFor(t, 5*time.Second, "probes", func() bool { return probes.Load() >= 2 })
	assert.Empty(t, br.bot.Status().Matches, "no match accepted while the engine fails")
	assert.Contains(t, br.logs.String(), "not accepting the match: the engine is failing")
	// … and is accepted once the engine answers its probe.
	eng.behave = ""
	healthy.Store(true)
	waitFor(t, 10*time.Second, "the second match accepted", func() bool {
		for _, m := range br.bot.Status().Matches {
			if m.ID == second {
				return true
			}
		}
		return false
	})
	assert.Empty(t, br.bot.Status().EngineFailing)
	assert.Contains(t, br.logs.String(), "engine answers its probe again")
}

func TestMoveCountsString(t *testing.T) {
	t.Parallel()
	c := MoveCounts{Engine: 30, Forced: 2, Fallbacks: map[string]int{CauseTimeout: 2, CauseFailed: 1}}
	assert.Equal(t, "30 engine, 2 forced, 3 fallback (failed 1, timeout 2)", c.String())
	assert.Equal(t, "1 engine, 0 forced, 0 fallback", MoveCounts{Engine: 1}.String())
}

func TestEngineLabelKeepsTheSuffix(t *testing.T) {
	t.Parallel()
	b := &Bot{}
	assert.Equal(t, "edax", b.engineLabel("edax"))
	b.engineFailing = "x"
	long := b.engineLabel(strings.Repeat("é", 200))
	assert.Len(t, []rune(long), flipsight.MaxEnvironmentLen)
	assert.True(t, strings.HasSuffix(long, failingSuffix))
}

// TestDefaultLogIsForPeople: at the default level the log names the bot
// and its rating once it is known, gives one short line per own move
// (square, time, depth, score; the source only when not the engine), one
// line per leg's end and one per match with its totals, and nothing about
// the match after that; the full figures are at debug level.
func TestDefaultLogIsForPeople(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{clock: 20 * time.Second})
	var info logBuffer
	br := startBot(t, fs, factoryOf(&fakeEngine{}, PerLeg), func(o *Options, _ *flipsight.Config) {
		o.Logger = slog.New(slog.NewTextHandler(&info, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	waitOnline(t, fs, br)
	id := challenge(t, fs, "house", othello.Std)
	requireFinishedByDiscs(t, fs.waitResult(t, id, 60*time.Second))
	waitFor(t, 5*time.Second, "the match's last line", func() bool { return strings.Contains(info.String(), `msg="match finished"`) })
	time.Sleep(200 * time.Millisecond) // room for a late line
	logs := info.String()
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(logs)
		}
	})
	assert.Regexp(t, `msg="playing as" name=me id=\d+`, logs)
	moves := regexp.MustCompile(`(?m)^.*msg=move match=\d+ leg=[01] square=[a-h][1-8] took=\S+ depth=\d+ score=[+-]\d+\.\d\n`).FindAllString(logs, -1)
	assert.GreaterOrEqual(t, len(moves), 20, "short move lines")
	assert.NotContains(t, logs, "overhead_est_ms", "the plan's figures are at debug level")
	assert.Equal(t, 2, strings.Count(logs, `msg="leg finished"`))
	assert.Regexp(t, `msg="leg finished" match=\d+ leg=0 discs=\d+–\d+ bot=(black|white) result=(win|loss|draw) status=finished`, logs)
	after := logs[strings.Index(logs, `msg="match finished"`):]
	after = after[strings.Index(after, "\n")+1:]
	assert.NotContains(t, after, fmt.Sprintf("match=%d ", id), "nothing about the match after its last line")
}
