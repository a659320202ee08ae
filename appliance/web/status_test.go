package web

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
)

func TestRunClocks(t *testing.T) {
	at := time.Unix(1_800_000_000, 0).UTC()
	st := state.Status{Report: state.Report{Matches: []state.Match{{Legs: []state.Leg{
		{Status: "active", Turn: 1, ClocksMS: [2]int64{10_000, 20_000}, ClocksAt: at},
		{Status: "finished", Turn: 2, ClocksMS: [2]int64{10_000, 20_000}, ClocksAt: at},
		{Status: "active", Turn: 2, ClocksMS: [2]int64{10_000, 1_000}, ClocksAt: at},
	}}}}}
	runClocks(&st, at.Add(2500*time.Millisecond))
	l := st.Matches[0].Legs
	assert.Equal(t, [2]int64{7_500, 20_000}, l[0].ClocksMS, "the mover's clock runs")
	assert.Equal(t, [2]int64{10_000, 20_000}, l[1].ClocksMS, "a finished leg's clocks stand")
	assert.Equal(t, [2]int64{10_000, 0}, l[2].ClocksMS, "never below zero")
}

// TestStatusPageShowsHowMovesWereChosen: a running match's moves by source
// and fallback cause, a result's fallbacks, and the bot's refusal of new
// matches while its engine fails are on the status page.
func TestStatusPageShowsHowMovesWereChosen(t *testing.T) {
	hub := state.NewHub(nil)
	h, err := New(Config{Hub: hub, Backend: stubBackend{}, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	hub.Update(func(st *state.Status) {
		st.Token = state.TokenStored
		st.Storage.OK = true
		st.Phase = state.PhaseRunning
		st.EngineFailing = "the engine failed on 6 own moves in a row (last: timeout)"
		st.Matches = []state.Match{{ID: 7, Opponent: "house", Mode: "std"}}
		st.Matches[0].Moves.Engine, st.Matches[0].Moves.Forced = 20, 1
		st.Matches[0].Moves.Fallbacks = map[string]int{"timeout": 3}
		st.Results = []state.Result{{MatchID: 5, Opponent: "house", Mode: "std", Outcome: "loss"}}
		st.Results[0].Moves.Engine = 2
		st.Results[0].Moves.Fallbacks = map[string]int{"failed": 28}
	})
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Host = "127.0.0.1"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body := rec.Body.String()
	assert.Contains(t, body, "Moves: 20 engine, 1 forced, 3 fallback (timeout 3)")
	assert.Contains(t, body, "· 28 fallback")
	assert.Contains(t, body, "Not accepting matches: the engine failed on 6 own moves in a row (last: timeout)")
}

// TestNetworkSentenceOnThePage: offline with the device's network up, the
// page says "FlipSight unreachable" with a sentence naming the cause, the
// raw error only in a details element; without network it says "No
// network". Before, both read "No network" with the raw Go error.
func TestNetworkSentenceOnThePage(t *testing.T) {
	const raw = `Get "https://othelloclub.com/api/v1/bot/poll": dial tcp 203.0.113.5:443: connect: connection refused; retrying in 2s`
	for _, up := range []bool{true, false} {
		h := newTestHandler(t)
		h.hub.Update(func(st *state.Status) {
			st.Phase, st.Token, st.Storage.OK = state.PhaseRunning, state.TokenStored, true
			st.NetworkDown, st.Detail, st.Device.NetworkUp = true, raw, up
		})
		code, body := h.get("/")
		require.Equal(t, http.StatusOK, code)
		if up {
			assert.Contains(t, body, `id="badge">FlipSight unreachable<`)
			assert.Contains(t, body, `<span class="detail" id="network-sentence">FlipSight cannot be reached (connection refused by othelloclub.com); the device&#39;s network is up.</span>`)
		} else {
			assert.Contains(t, body, `id="badge">No network<`)
			assert.Contains(t, body, "The device has no network")
		}
		i := strings.Index(body, `<details class="muted" id="network-error">`)
		require.Positive(t, i, "the raw error in a details element")
		assert.Equal(t, 1, strings.Count(body, "dial tcp 203.0.113.5:443"), "the raw error only there")
		assert.Greater(t, strings.Index(body, "dial tcp 203.0.113.5:443"), i)
	}
}

// TestStatusPageListsMissingIndicators: the LEDs and display found and,
// for each thing missing, the reason are on the page. Before, they were
// only in /api/status and the log.
func TestStatusPageListsMissingIndicators(t *testing.T) {
	h := newTestHandler(t)
	h.hub.Update(func(st *state.Status) {
		st.Phase, st.Token, st.Storage.OK = state.PhaseRunning, state.TokenStored, true
		st.Indicators = state.Indicators{LEDs: []string{"yellow GPIO27"}, Missing: []string{
			"green LED pin GPIO17 not available (no /dev/gpiochip0)", "display: no device at 0x3c, 0x3d, 0x27, 0x3f on I2C1"}}
	})
	for _, path := range []string{"/", "/live"} {
		_, body := h.get(path)
		assert.Contains(t, body, `<span class="pill">yellow GPIO27</span>`, path)
		assert.Contains(t, body, `<li class="warn">green LED pin GPIO17 not available (no /dev/gpiochip0)</li>`, path)
		assert.Contains(t, body, `<li class="warn">display: no device at 0x3c, 0x3d, 0x27, 0x3f on I2C1</li>`, path)
	}
	code, _ := h.get("/display.png")
	assert.Equal(t, http.StatusNotFound, code, "no picture without indicators")
}
