package bot

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock/clocktest"
	"flipbot.dev/flipbot/internal/logagg"
	"flipbot.dev/flipbot/internal/testutil"
)

// floodBot returns a bot at its limit of matches, its log going to out,
// its timers and aggregated warnings on clock; nothing reaches the
// network.
func floodBot(t *testing.T, out *testutil.LineRing, clock *clocktest.Clock) *Bot {
	t.Helper()
	tok, err := flipsight.NewToken("fsbm_flood")
	require.NoError(t, err)
	c, err := flipsight.NewClient(flipsight.Config{APIURL: "http://127.0.0.1:1/api", Token: tok})
	require.NoError(t, err)
	log := slog.New(slog.NewTextHandler(out, nil))
	b, err := New(Options{Client: c, Engine: factoryOf(&fakeEngine{}, Shared), Logger: log, MaxMatches: 1, Clock: clock})
	require.NoError(t, err)
	b.serverWarn = logagg.New(log, ServerWarnInterval, clock)
	b.me = 2
	b.pollTimer = clock.NewTimer(time.Hour) // Run's, for onPoll
	t.Cleanup(func() { b.pollTimer.Stop() })
	for id := range int64(b.opts.MaxMatches + runningAllowance) {
		b.matches[-1-id] = &match{id: -1 - id}
	}
	return b
}

// runningMatch is a bot match the server says is running, id id.
func runningMatch(t *testing.T, id int64) flipsight.Match {
	var m flipsight.Match
	js := fmt.Sprintf(`{"id":%d,"bot_a":1,"bot_b":2,"status":"running","game_mode":"std","state":{"game_mode":"std","legs":[]}}`, id)
	require.NoError(t, json.Unmarshal([]byte(js), &m))
	return m
}

// TestServerWarningsAreAggregated: 20,000 running matches the bot has no
// room for, 1,000 malformed objects and 1,000 bad stream lines within a
// minute write one line of each kind at once and one with the count at
// the end of the minute. Before, each match id wrote a line (59,924
// lines for 20,000 events, 8.3 MB in 25 s, measured over HTTP); the
// repeat filter remembered 4,096 ids.
func TestServerWarningsAreAggregated(t *testing.T) {
	ring := testutil.NewLineRing(1 << 20)
	clock := clocktest.New(time.Unix(0, 0))
	b := floodBot(t, ring, clock)
	now := time.Now()
	for id := int64(1); id <= 20000; id++ {
		b.observe(runningMatch(t, id), 1800000000000, now)
	}
	refused := make([]error, 1000)
	for i := range refused {
		refused[i] = fmt.Errorf("match %d: board_size 100000: %w", i, errors.New("out of range"))
	}
	b.onPoll(pollResult{resp: &flipsight.PollResponse{Refused: refused}})
	for range 1000 {
		b.serverWarn.Warn("skipping a bad stream line", "err", flipsight.ErrBadEvent)
	}
	assert.Len(t, b.matches, b.opts.MaxMatches+runningAllowance, "none taken on")
	assert.Equal(t, 3, ring.Total(), "one line a kind at once:\n%s", strings.Join(ring.Lines(), "\n"))
	clock.Advance(ServerWarnInterval)
	out := strings.Join(ring.Lines(), "\n")
	assert.Equal(t, 6, ring.Total(), "and one with the count at the minute's end:\n%s", out)
	assert.Contains(t, out, "more=19999")
	assert.Contains(t, out, "more=999")
}
