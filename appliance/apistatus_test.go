package appliance

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/bot/record"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenAt is the hub's clock in the golden files.
var goldenAt = time.Date(2026, 12, 7, 9, 30, 0, 0, time.UTC)

// goldenFacts sets the device's facts of every golden status: a Pi on a
// home network, /perm fine, the indicators all found.
func goldenFacts(st *state.Status) {
	st.Phase = state.PhaseRunning
	st.Token = state.TokenStored
	st.Engine = state.EngineSettings{MaxMatches: 2, Threads: 4, HashMB: 64,
		PerMode: map[string]string{"std": "egaroucid", "octagon": "builtin"}}
	st.Device = state.Device{
		Model: "Raspberry Pi 4 Model B Rev 1.5", Hostname: "flipbot",
		Addresses: []string{"192.168.1.23", "fe80::1"}, PageURLs: []string{"http://192.168.1.23:8080/"},
		Version: "v1.4.0", Started: goldenAt.Add(-90 * time.Minute), SysUptimeS: 5500, NetworkUp: true,
	}
	st.Storage = state.Storage{Path: "/perm/flipbot", OK: true, FreeBytes: 28 << 30}
	st.Indicators = state.Indicators{LEDs: []string{"green GPIO17", "yellow GPIO27", "red GPIO22"},
		Display: "ssd1306 128x64 @0x3c", Missing: []string{}}
	st.Games = state.GameStoreOf(record.StoreStatus{Dir: "/perm/flipbot/games", OK: true, Games: 12, Bytes: 48_000,
		CapBytes: 256 << 20, Files: 13, Analysed: 3, AnalysisBytes: 9_000})
}

// goldenBot is the bot as FlipSight names it.
var goldenBot = bot.BotInfo{ID: 9, Name: "TestBot", Rating: 1523.4, RD: 61.25, Wins: 14, Losses: 9, Draws: 1, Official: true}

// goldenResults are two finished matches, newest first.
func goldenResults() []bot.Result {
	return []bot.Result{
		{MatchID: 41, Ranked: true, Mode: "std", Opponent: "edax-l5", Outcome: bot.OutcomeWin, Mine: 70, Theirs: 58,
			Reason: "discs", At: goldenAt.Add(-10 * time.Minute), Games: []string{"41-0", "41-1"},
			Moves: bot.MoveCounts{Engine: 58, Forced: 2, Fallbacks: map[string]int{bot.CauseTimeout: 1}}},
		{MatchID: 38, Human: true, Mode: "octagon", Opponent: "human", Outcome: bot.OutcomeAborted,
			At: goldenAt.Add(-40 * time.Minute), Moves: bot.MoveCounts{Engine: 3}},
	}
}

// goldenMatches are two running matches: a ranked bot match with our move
// pending in one leg, and a human match on the octagon.
func goldenMatches() []bot.MatchStatus {
	board := make([]int, 64)
	board[27], board[28], board[35], board[36], board[19] = 2, 1, 1, 1, 1
	oct := make([]int, 100)
	oct[44], oct[45], oct[54], oct[55] = 2, 1, 1, 2
	return []bot.MatchStatus{
		{ID: 42, Mode: "std", Status: "running", Ranked: true, Opponent: "edax-l5", Participant: 1, Totals: [2]int{4, 1},
			Legs: []bot.LegStatus{
				{Leg: 0, Status: "active", BoardSize: 8, Board: board, Blocked: []int{}, MyColor: 1, Turn: 1, MyTurn: true,
					Discs: [2]int{4, 1}, ClocksMS: [2]int64{41_000, 52_500}, ClocksAt: goldenAt.Add(-2 * time.Second),
					Revision: 3, LastMove: 19, Moves: 1, Thinking: true},
				{Leg: 1, Status: "finished", BoardSize: 8, Board: board, Blocked: []int{}, MyColor: 2, Turn: 1,
					Discs: [2]int{1, 4}, ClocksMS: [2]int64{50_000, 58_000}, ClocksAt: goldenAt.Add(-time.Minute),
					Revision: 61, LastMove: -1, Moves: 60,
					LastSearch: bot.Search{Move: 63, Revision: 59, Ply: 59, Source: "fallback", Cause: bot.CauseTimeout,
						Depth: 0, Score: 0, ElapsedMS: 5_012}},
			},
			Moves: bot.MoveCounts{Engine: 27, Forced: 1, Fallbacks: map[string]int{bot.CauseTimeout: 1, bot.CauseStarting: 2}}},
		{ID: 43, Human: true, Mode: "octagon", Status: "pending", Opponent: "human",
			Legs: []bot.LegStatus{
				{Leg: 0, Status: "active", BoardSize: 10, Board: oct, Blocked: []int{0, 9, 90, 99}, MyColor: 2, Turn: 1,
					Discs: [2]int{2, 2}, ClocksMS: [2]int64{300_000, 300_000}, ClocksAt: goldenAt.Add(-3 * time.Second),
					Revision: 1, LastMove: -2,
					LastSearch: bot.Search{Move: 34, Revision: 0, Ply: 0, Source: "engine", Depth: 14, Exact: true,
						Score: 2.5, ElapsedMS: 820}},
			},
			Moves: bot.MoveCounts{Engine: 1}},
	}
}

// online is the bot's report while its stream is up.
func goldenOnline(matches []bot.MatchStatus, results []bot.Result) bot.Status {
	return bot.Status{State: bot.StateOnline, Bot: goldenBot, Matches: matches, Results: results,
		Updated: goldenAt.Add(-time.Second)}
}

// TestAPIStatusGolden: /api/status's JSON for representative states, from
// the bot's report through the runner's copy (reportOf) and the hub, is
// byte for byte the golden file's: the shape its readers (the pages'
// scripts, people's monitoring) rely on. go test -run Golden -update
// rewrites the files after a deliberate change.
func TestAPIStatusGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		kind state.Kind // the state the case shows
		set  func(st *state.Status)
	}{
		{"setup_needed", state.KindSetupNeeded, func(st *state.Status) {
			st.Token = state.TokenNone
			st.PairingCode = "480917" // never in /api/status
			st.Card = state.CardToken{}
		}},
		{"pairing_card_unchecked", state.KindSetupNeeded, func(st *state.Status) {
			// Setup needed while the card's token file waits for
			// FlipSight, and the token is being asked on the page.
			st.Token = state.TokenNone
			st.PairingCode = "480917"
			st.Card = state.CardToken{Present: true, Outcome: state.CardUnchecked,
				Message: "FlipSight could not be reached to check the card's token; trying again"}
		}},
		{"token_rejected", state.KindTokenRejected, func(st *state.Status) {
			st.Report = reportOf(st.Report, goldenOnline(nil, nil))
			st.Report = reportOf(st.Report, bot.Status{State: bot.StateTokenRejected, LastError: "HTTP 401",
				Updated: goldenAt})
			st.Online, st.Rejected, st.Detail = false, true, "FlipSight rejected the token (401)"
			st.Card = state.CardToken{Present: true, Outcome: state.CardRefused, Message: "FlipSight refused the card's token"}
		}},
		{"connecting", state.KindConnecting, func(st *state.Status) {
			st.Report = reportOf(st.Report, bot.Status{State: bot.StateConnecting, Matches: []bot.MatchStatus{},
				Results: []bot.Result{}, Updated: goldenAt})
		}},
		{"online_idle", state.KindOnlineIdle, func(st *state.Status) {
			st.Token = state.TokenEnv
			st.Report = reportOf(st.Report, goldenOnline([]bot.MatchStatus{}, []bot.Result{}))
			st.Card = state.CardToken{Present: true, Outcome: state.CardEnv, Message: "FS_BOT_TOKEN is in effect"}
		}},
		{"in_game", state.KindInGame, func(st *state.Status) {
			st.Report = reportOf(st.Report, goldenOnline(goldenMatches(), goldenResults()))
		}},
		{"recent_results", state.KindOnlineIdle, func(st *state.Status) {
			// Results kept from a bot before, merged with the new bot's.
			old := goldenResults()
			st.Report = reportOf(st.Report, goldenOnline(nil, old[1:]))
			st.Report = reportOf(st.Report, goldenOnline([]bot.MatchStatus{}, old[:1]))
		}},
		{"engine_failed", state.KindEngineFailed, func(st *state.Status) {
			st.Report = reportOf(st.Report, goldenOnline(nil, goldenResults()))
			st.Online, st.Matches, st.NetworkDown, st.EngineFailed = false, nil, false, true
			st.Detail = "egaroucid: no answer to the start-up check within 10s; checking again in 1m0s"
		}},
		{"engine_failing", state.KindInGame, func(st *state.Status) {
			rep := goldenOnline(goldenMatches()[:1], nil)
			rep.EngineFailing = "the engine failed on 6 own moves in a row (last: timeout)"
			st.Report = reportOf(st.Report, rep)
		}},
		{"indicators_missing", state.KindOnlineIdle, func(st *state.Status) {
			st.Report = reportOf(st.Report, goldenOnline([]bot.MatchStatus{}, nil))
			st.Indicators = state.Indicators{LEDs: []string{"yellow GPIO27"}, Missing: []string{
				"green LED pin GPIO17 not available (no /dev/gpiochip0)",
				"display: no device at 0x3c, 0x3d, 0x27, 0x3f on I2C1"}}
		}},
		{"no_network", state.KindNoNetwork, func(st *state.Status) {
			st.Report = reportOf(st.Report, goldenOnline(nil, nil))
			st.Report = reportOf(st.Report, bot.Status{State: bot.StateConnecting, NetworkDown: true,
				LastError: `Get "https://othelloclub.com/api/v1/bot/poll": dial tcp: lookup othelloclub.com: no such host; retrying in 4s`,
				Updated:   goldenAt})
			st.Device.Addresses, st.Device.PageURLs, st.Device.NetworkUp = []string{}, []string{}, false
			st.Device.SysUptimeS = 0
		}},
		{"unreachable_storage_memory", state.KindNoNetwork, func(st *state.Status) {
			// The network is up but FlipSight is not reached; /perm is
			// read-only, so the page's token is held in memory.
			st.Token = state.TokenMemory
			st.Storage = state.Storage{Path: "/perm/flipbot", Problem: "read-only file system"}
			st.Games = state.GameStoreOf(record.StoreStatus{Dir: "/perm/flipbot/games", Problem: "read-only", Unsaved: 2, Skipped: 1})
			st.Report = reportOf(st.Report, bot.Status{State: bot.StateConnecting, NetworkDown: true,
				LastError: "dial tcp 203.0.113.5:443: connect: connection refused; retrying in 2s", Updated: goldenAt})
		}},
		{"storage_missing", state.KindStorageMissing, func(st *state.Status) {
			st.Token = state.TokenNone
			st.Storage = state.Storage{Path: "/perm/flipbot", Problem: "/perm is not mounted"}
			st.Games = state.GameStoreOf(record.StoreStatus{Dir: "/perm/flipbot/games", Problem: "/perm is not mounted"})
		}},
		{"stopping", state.KindStopping, func(st *state.Status) {
			st.Report = reportOf(st.Report, goldenOnline(goldenMatches()[:1], nil))
			st.Report = reportOf(st.Report, bot.Status{State: bot.StateStopping, Bot: goldenBot,
				Matches: goldenMatches()[:1], Updated: goldenAt})
			st.Phase = state.PhaseStopping
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			hub := state.NewHub(func() time.Time { return goldenAt })
			hub.Update(func(st *state.Status) {
				goldenFacts(st)
				c.set(st)
			})
			st := hub.Snapshot()
			require.Equal(t, c.kind, st.Kind)
			got, err := st.JSON()
			require.NoError(t, err)
			got = append(got, '\n')
			assert.NotContains(t, string(got), "480917", "never the pairing code")
			golden(t, filepath.Join("testdata", "apistatus", c.name+".golden"), got)
		})
	}
}

// TestResultsFileGolden: the recent results file on /perm
// (recent-results.json) is written as it always was, and the golden file
// reads back to the same results.
func TestResultsFileGolden(t *testing.T) {
	dir := t.TempDir()
	var r state.Report
	r = reportOf(r, goldenOnline(nil, goldenResults()))
	f := newResultsFile(dir)
	require.NoError(t, f.Save(r.Results))
	got, err := os.ReadFile(f.Path())
	require.NoError(t, err)
	path := filepath.Join("testdata", ResultsFileName+".golden")
	golden(t, path, got)
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	back, err := decodeResults(want)
	require.NoError(t, err)
	assert.Equal(t, r.Results, back)
}

// golden checks got against the file at path (rewriting it first with
// -update).
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test -run Golden -update writes it")
	if !bytes.Equal(want, got) {
		assert.Equal(t, string(want), string(got), "differs from %s", path)
	}
}
