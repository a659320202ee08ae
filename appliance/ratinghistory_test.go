package appliance

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/ratings"
	"flipbot.dev/flipbot/appliance/state"
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
	won := bot.Status{State: bot.StateOnline, Bot: state.BotInfo{ID: 9, Name: "TestBot", Rating: 1541.2, RD: 80, Wins: 1}}
	e.player.push(won)
	e.player.push(won)
	h := loaded()
	require.Len(t, h.Samples, 2, "a sample per change, none for a repeat")
	assert.Equal(t, int64(9), h.Bot)
	assert.Equal(t, 1541.2, h.Samples[1].Rating)
	assert.Equal(t, ratings.Win, h.Result(1))
	e.player.push(bot.Status{State: bot.StateOnline, Bot: state.BotInfo{ID: 9, Name: "TestBot"}})
	assert.Len(t, loaded().Samples, 2, "a report without a rating is not a sample")

	code, body := e.get("/", false)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `<svg id="rating-graph"`)
	assert.Contains(t, body, `class="r-mark r-win"`)
	assert.Equal(t, h, e.a.RatingHistory())
}
