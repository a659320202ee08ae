package appliance

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// sampleGame plays a leg by the rules from a random 12-disc start.
func sampleGame(t testing.TB, mode othello.Mode, seed uint64, id int64, opponent string) record.Game {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	pos := othello.New(mode)
	var opening []flipsight.Move
	for len(opening) < 8 {
		l := pos.LegalMoves()
		mv := l[rng.IntN(len(l))]
		pos, _ = pos.Play(mv)
		opening = append(opening, flipsight.SquareMove(mv))
	}
	at := int64(1_796_400_000_000) + int64(seed)*100_000
	start := at
	var hist []flipsight.HistoryEntry
	for !pos.GameOver() {
		mv := othello.Pass
		if l := pos.LegalMoves(); len(l) > 0 {
			mv = l[rng.IntN(len(l))]
		}
		at += int64(rng.IntN(500) + 10)
		hist = append(hist, flipsight.HistoryEntry{Color: int(pos.Turn), Move: flipsight.SquareMove(mv), AtMS: at})
		pos, _ = pos.Play(mv)
	}
	b, w := pos.Count()
	reason := "discs"
	m := flipsight.Match{ID: id, BotA: 1, BotB: 2, GameMode: mode.String(), Ranked: true, Status: flipsight.MatchFinished,
		State: &flipsight.MatchState{GameMode: mode.String(), TimeLimitSec: 60, StartedMS: start, OpeningMoves: opening,
			BoardSize: mode.Size(), BlockedSquares: mode.BlockedSquares(), FinishReason: &reason}}
	g, err := record.FromLeg(record.LegInput{Source: record.SourceFlipSight, Match: m, View: flipsight.Leg{
		BlackParticipant: 0, History: hist, Status: flipsight.LegFinished, Discs: []int{b, w}, FinishedMS: &at,
		ClocksMS: []float64{50000, 51000}}, Names: [2]string{"PiBot", opponent}, Me: 0,
		Searches: map[int]record.Search{0: {Source: "engine", Depth: 14, Score: 2.5, HasScore: true}}})
	require.NoError(t, err)
	return g
}

// useGames makes s the game records of the appliance and its pages.
func (a *app) useGames(t *testing.T, s *record.Store) {
	t.Helper()
	a.cfg.Games = s
	require.NoError(t, a.newPages())
}

func withGames(t *testing.T, games ...record.Game) envOption {
	store := record.Open(record.Options{Dir: t.TempDir()})
	for _, g := range games {
		require.NoError(t, store.Add(g))
	}
	return func(c *Config, a *app) { a.useGames(t, store) }
}

func (e *testEnv) fetch(t *testing.T, path string) (int, http.Header, string) {
	t.Helper()
	resp, err := e.client.Get(e.base + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(b)
}

func TestGamesPagesAndAPI(t *testing.T) {
	std := sampleGame(t, othello.Std, 1, 40, "Edax")
	oct := sampleGame(t, othello.Octagon, 2, 41, "Tenten")
	e := startEnv(t, withGames(t, std, oct))

	code, _, body := e.fetch(t, "/games")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "/games/"+std.ID)
	assert.Contains(t, body, "/games/"+oct.ID)
	assert.Contains(t, body, "/api/games/"+std.ID+"/ggf")
	assert.Contains(t, body, "/api/games/"+oct.ID+"/ggf", "GGF has the octagon (GGS's 88); not reversi: appliance/web's tests")

	_, _, body = e.fetch(t, "/games?mode=octagon")
	assert.Contains(t, body, oct.ID)
	assert.NotContains(t, body, std.ID)
	_, _, body = e.fetch(t, "/games?opponent=edax")
	assert.Contains(t, body, std.ID)
	assert.NotContains(t, body, oct.ID)

	code, _, body = e.fetch(t, "/games/"+oct.ID)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, 1, strings.Count(body, `<svg id="board"`), "one board, at the end")
	assert.Equal(t, 12, strings.Count(body, `class="blk"`), "octagon's blocked squares drawn")
	assert.Equal(t, len(oct.Moves), strings.Count(body, `class="mv `), "every move in the list")
	assert.Equal(t, len(oct.Moves)+1, strings.Count(body, `class="ply-info"`), "a panel per position")
	assert.Contains(t, body, "engine &#43;2.5 at depth 14")
	assert.Contains(t, body, `id="not-analysed"`)

	code, _, _ = e.fetch(t, "/games/1-0-1")
	assert.Equal(t, http.StatusNotFound, code)
	code, _, _ = e.fetch(t, "/games/..%2fetc")
	assert.Equal(t, http.StatusNotFound, code)

	code, hd, body := e.fetch(t, "/api/games?limit=1")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "application/json", hd.Get("Content-Type"))
	var list struct {
		Games []record.Summary
		Total int
		Store state.GameStore
	}
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	assert.Equal(t, 2, list.Total)
	require.Len(t, list.Games, 1)
	assert.Equal(t, oct.ID, list.Games[0].ID, "newest first")
	assert.True(t, list.Store.OK)

	code, _, body = e.fetch(t, "/api/games/"+std.ID)
	require.Equal(t, http.StatusOK, code)
	var got record.Game
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	assert.Equal(t, std, got)

	code, hd, body = e.fetch(t, "/api/games/"+std.ID+"/ggf")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, hd.Get("Content-Disposition"), "attachment")
	gg, err := ggf.Parse(body)
	require.NoError(t, err)
	assert.Len(t, gg.Moves, len(std.Moves))
	code, _, body = e.fetch(t, "/api/games/"+oct.ID+"/ggf")
	require.Equal(t, http.StatusOK, code)
	gg, err = ggf.Parse(body)
	require.NoError(t, err)
	assert.Equal(t, othello.Octagon, gg.Start.Mode)
	code, _, body = e.fetch(t, "/api/games/"+oct.ID+"/jsonl")
	require.Equal(t, http.StatusOK, code)
	back, err := record.ParseLine([]byte(body))
	require.NoError(t, err)
	assert.Equal(t, oct, back)

	_, _, body = e.fetch(t, "/api/games/export.jsonl")
	assert.Equal(t, 2, strings.Count(body, "\n"))
	_, _, body = e.fetch(t, "/api/games/export.ggf")
	assert.Equal(t, 2, strings.Count(body, "(;GM[Othello]"), "std and octagon")
	_, _, body = e.fetch(t, "/api/games/export.jsonl?mode=std")
	assert.Equal(t, 1, strings.Count(body, "\n"))
}
