package appliance

import (
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/ratings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/bot"
)

// TestRatingHistoryIsKept: every change of the rating the bot reports is
// a sample, kept on /perm; a report without a change adds none; the
// status page draws them.
func TestRatingHistoryIsKept(t *testing.T) {
	e := provisioned(t)
	file := ratings.NewFile(e.a.cfg.Dir)
	loaded := func() ratings.History {
		h, err := file.Load()
		require.NoError(t, err)
		return h
	}
	require.Eventually(t, func() bool { return len(loaded().Samples) == 1 }, 5*time.Second, 10*time.Millisecond,
		"the first report's rating")
	won := bot.Status{State: bot.StateOnline, Bot: bot.BotInfo{ID: 9, Name: "TestBot", Rating: 1541.2, RD: 80, Wins: 1}}
	e.player.push(won)
	e.player.push(won)
	h := loaded()
	require.Len(t, h.Samples, 2, "a sample per change, none for a repeat")
	assert.Equal(t, int64(9), h.Bot)
	assert.Equal(t, 1541.2, h.Samples[1].Rating)
	assert.Equal(t, ratings.Win, h.Result(1))
	e.player.push(bot.Status{State: bot.StateOnline, Bot: bot.BotInfo{ID: 9, Name: "TestBot"}})
	assert.Len(t, loaded().Samples, 2, "a report without a rating is not a sample")

	code, body := e.get("/", false)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `<svg id="rating-graph"`)
	assert.Contains(t, body, `class="r-mark r-win"`)
	assert.Equal(t, h, e.a.RatingHistory())
}

// TestHostileRatingDoesNotWipeTheHistory: a rating out of range from the
// server (wins 2,000,000, RD −5) is dropped with one log line, the kept
// history stays on /perm and reads back whole at the next start. Before,
// it was saved; the next start refused the whole file ("rating history
// unreadable; starting a new one") and the next sample overwrote it.
func TestHostileRatingDoesNotWipeTheHistory(t *testing.T) {
	dir := t.TempDir()
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	r := newRatingRecorder(dir, store.FS{}, log)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	r.now = func() time.Time { now = now.Add(time.Minute); return now }
	for i := range 10 {
		r.observe(state.BotInfo{ID: 9, Rating: 1500 + float64(i), RD: 300, Wins: i})
	}
	r.observe(state.BotInfo{ID: 9, Rating: 1600, RD: -5, Wins: 2_000_000})
	r.observe(state.BotInfo{ID: 9, Rating: 1600, RD: -5, Wins: 2_000_000})
	assert.Equal(t, 1, strings.Count(logs.String(), "rating sample dropped"), "one log line, not one per report")
	assert.Len(t, r.history().Samples, 10)

	again := newRatingRecorder(dir, store.FS{}, log)
	assert.NotContains(t, logs.String(), "unreadable")
	h := again.history()
	require.Len(t, h.Samples, 10, "the history reads back whole")
	again.now = r.now
	again.observe(state.BotInfo{ID: 9, Rating: 1520, RD: 290, Wins: 10})
	assert.Len(t, again.history().Samples, 11)
}

// TestBadSamplesInTheFileAreSkipped: a file with a bad sample loses that
// sample only, with one log line.
func TestBadSamplesInTheFileAreSkipped(t *testing.T) {
	dir := t.TempDir()
	in := `{"bot_id":9,"samples":[
		{"at":"2026-12-01T12:00:00Z","rating":1500,"rd":350},
		{"at":"2026-12-01T13:00:00Z","rating":1510,"rd":-5,"wins":2000000},
		{"at":"2026-12-01T14:00:00Z","rating":1495,"rd":330,"losses":1}]}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, ratings.FileName), []byte(in), 0o600))
	logs := &syncBuffer{}
	r := newRatingRecorder(dir, store.FS{}, slog.New(slog.NewTextHandler(logs, nil)))
	assert.Len(t, r.history().Samples, 2)
	assert.Contains(t, logs.String(), "bad samples skipped")
	assert.Contains(t, logs.String(), "skipped=1")
	assert.NotContains(t, logs.String(), "unreadable")
}

// TestFutureSampleInTheFile: a sample dated 9999 in the file is shown as
// of the device's clock, and the next sample is kept after it. Before,
// every later sample was refused as older, for good.
func TestFutureSampleInTheFile(t *testing.T) {
	dir := t.TempDir()
	in := `{"bot_id":9,"samples":[
		{"at":"2026-12-01T12:00:00Z","rating":1500,"rd":350},
		{"at":"9999-01-01T00:00:00Z","rating":1510,"rd":340,"wins":1}]}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, ratings.FileName), []byte(in), 0o600))
	r := newRatingRecorder(dir, store.FS{}, slog.New(slog.DiscardHandler))
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	r.now = func() time.Time { return now }
	h := r.history()
	require.Len(t, h.Samples, 2)
	assert.Equal(t, now, h.Samples[1].At, "shown as of now")
	now = now.Add(time.Hour)
	r.observe(state.BotInfo{ID: 9, Rating: 1495, RD: 330, Wins: 1, Losses: 1})
	back, err := ratings.NewFile(dir).Load()
	require.NoError(t, err)
	require.Len(t, back.Samples, 3, "the next sample is kept")
	assert.Equal(t, now, back.Samples[1].At, "and the future one re-dated to it")
	assert.Equal(t, ratings.Loss, back.Result(2))
}
