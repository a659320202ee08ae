package web

import (
	"context"
	"encoding/json"
	"html"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot/analysis"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// analysedHandler is a Handler whose store holds games, the first
// analysed (a quick analysis: 4 plies, exact from 10 empties).
func analysedHandler(t testing.TB, games ...record.Game) (testHandler, record.Analysis) {
	t.Helper()
	dir := t.TempDir()
	store := record.Open(record.Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	for _, g := range games {
		require.NoError(t, store.Add(g))
	}
	eng := search.New(search.Options{Threads: 1, HashMB: 8})
	a, err := analysis.Game(context.Background(), eng, &games[0], analysis.Options{Depth: 4, ExactEmpties: 10})
	require.NoError(t, err)
	require.NoError(t, store.SaveAnalysis(a))
	hub := state.NewHub(nil)
	hub.Update(func(st *state.Status) {
		st.Storage = state.Storage{OK: true, Path: "/perm"}
		st.Device.Hostname, st.Device.Model = "flipbot", "Raspberry Pi 4 Model B Rev 1.5"
	})
	h, err := New(Config{Hub: hub, Backend: stubBackend{}, Games: store, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return testHandler{Handler: h}, a
}

// replayJSON returns the page's data for replay.js.
func replayJSON(t *testing.T, body string) replayData {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="replay-data">(.*?)</script>`).FindStringSubmatch(body)
	require.NotNil(t, m, "the page has its data")
	var d replayData
	require.NoError(t, json.Unmarshal([]byte(m[1]), &d))
	return d
}

func TestReplayPage(t *testing.T) {
	oct := sampleGame(t, othello.Octagon, 2, 41, "Tenten")
	std := sampleGame(t, othello.Std, 1, 40, "Edax")
	h, a := analysedHandler(t, oct, std)
	h.t = t

	code, body := h.get("/games/" + oct.ID)
	require.Equal(t, http.StatusOK, code)
	n := len(oct.Moves)
	assert.Equal(t, 1, strings.Count(body, `<svg id="board"`), "one board")
	assert.Contains(t, body, `data-ply="`+strconv.Itoa(n)+`"`, "the end by default")
	assert.Equal(t, 12, strings.Count(body, `class="blk"`), "octagon's blocked squares drawn")
	assert.Equal(t, 88, strings.Count(body, `<circle class="disc`), "a disc place per playable square")
	for _, c := range []string{">a<", ">j<", ">1<", ">10<"} {
		assert.Contains(t, body, `class="coord"`)
		assert.Contains(t, body, c, "coordinates")
	}
	assert.Equal(t, n, strings.Count(body, `class="mv c-`), "every move in the list")
	assert.Equal(t, n+1, strings.Count(body, `class="ply-info"`), "a panel per position")
	assert.Equal(t, n, strings.Count(body, `class="ply-info" data-ply="`)-strings.Count(body, `class="ply-info" data-ply="`+strconv.Itoa(n)+`">`),
		"all panels but the current one hidden")
	assert.Contains(t, body, `<svg id="graph"`)
	assert.Equal(t, n+1, strings.Count(body, `class="g-hit"`), "every position clickable on the graph")
	assert.Contains(t, body, `id="g-line"`)
	assert.Contains(t, body, "(the analysis)")
	assert.Contains(t, body, `id="analysis-summary"`)
	assert.Contains(t, body, "/api/games/"+oct.ID+"/analysis")
	assert.Contains(t, body, "blunder ??</span> ≥ 10", "the thresholds are stated")
	sum := a.Summary()
	assert.Contains(t, body, strconv.FormatFloat(sum.MeanLoss[0], 'f', 2, 64))
	marks := 0
	for _, m := range a.Moves {
		if c := record.LossClass(m.Loss); m.Move != othello.Pass && (c == record.ClassMistake || c == record.ClassBlunder) {
			marks++
		}
	}
	assert.Equal(t, marks, strings.Count(body, `<circle class="g-mark`), "every mistake and blunder marked on the graph")
	assert.Equal(t, len(a.TurningPoints), strings.Count(body, `<line class="g-turn"`))

	data := replayJSON(t, body)
	require.Len(t, data.Plies, n+1)
	positions, err := oct.Replay()
	require.NoError(t, err)
	for i, p := range data.Plies {
		assert.Equal(t, boardString(positions[i].Board()), p.Board, "position %d", i)
		if i > 0 {
			m := oct.Moves[i-1]
			assert.Equal(t, m.Move, p.Last)
			am := a.Moves[i-1]
			if m.Move != othello.Pass {
				assert.Equal(t, record.LossClass(am.Loss), p.Class)
			}
			if p.Best >= 0 {
				assert.Equal(t, am.Best, p.Best)
				assert.NotEqual(t, record.ClassBest, p.Class, "the best move is shown where the played one lost")
			}
		}
	}

	// A position from the URL; out of range is clamped.
	_, body = h.get("/games/" + oct.ID + "?ply=5")
	assert.Contains(t, body, `data-ply="5" data-last=`)
	assert.Contains(t, body, `class="ply-info" data-ply="5">`)
	assert.Contains(t, body, `aria-label="the board after move 5"`)
	m5 := oct.Moves[4]
	assert.Regexp(t, `data-ply="5" class="mv c-\w* cur"`, body, "the current move marked in the list")
	assert.Contains(t, body, "5. "+colorName(m5.Color)+" "+m5.Square)
	_, body = h.get("/games/" + oct.ID + "?ply=9999")
	assert.Contains(t, body, `data-ply="`+strconv.Itoa(n)+`" data-last=`)
	_, body = h.get("/games/" + oct.ID + "?ply=-3")
	assert.Contains(t, body, `data-ply="0" data-last=`)
	assert.Contains(t, body, `<b>Start</b>`)

	// Not analysed: the engine's own scores, and a word on when.
	code, body = h.get("/games/" + std.ID)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `id="not-analysed"`)
	assert.Contains(t, body, "flipbot games analyse "+std.ID)
	assert.Contains(t, body, "engine's own scores")
	assert.Equal(t, 0, strings.Count(body, `<circle class="g-mark`))
	assert.Equal(t, 0, strings.Count(body, `class="blk"`), "std has no blocked square")
	assert.Contains(t, body, ">h<")
	assert.NotContains(t, body, ">i<")
	assert.True(t, strings.Contains(html.UnescapeString(body), "engine +2.5 at depth 14"), "the engine's own score and depth")

	code, body = h.get("/api/games/" + oct.ID + "/analysis")
	require.Equal(t, http.StatusOK, code)
	var back record.Analysis
	require.NoError(t, json.Unmarshal([]byte(body), &back))
	assert.Equal(t, a.Moves, back.Moves)
	code, _ = h.get("/api/games/" + std.ID + "/analysis")
	assert.Equal(t, http.StatusNotFound, code)
	code, _ = h.get("/api/games/1-0-1/analysis")
	assert.Equal(t, http.StatusNotFound, code)
}

// TestReplayMoveListByPly: the list puts black's moves in the first
// column and white's in the second, each numbered by its ply (as the
// analysis, the panel and `flipbot games show` number moves), rows not
// numbered; a game whose first move is white's starts with an empty cell.
func TestReplayMoveListByPly(t *testing.T) {
	g := sampleGame(t, othello.Std, 5, 5, "Greedy")
	rows := moveRows(g, nil, plyViews(mustFrames(t, g), nil), 8)
	ply := 1
	for i, r := range rows {
		for c := range 2 {
			if r.Cells[c] == nil {
				assert.True(t, i == 0 && c == 0 && g.Moves[0].Color == 2 || i == len(rows)-1 && c == 1,
					"row %d: only a white-first game's first cell and the last row's second are empty", i)
				continue
			}
			assert.Equal(t, ply, r.Cells[c].Ply)
			assert.Equal(t, g.Moves[ply-1].Color, c+1)
			ply++
		}
	}
	assert.Equal(t, len(g.Moves)+1, ply)

	h, _ := analysedHandler(t, g)
	h.t = t
	code, body := h.get("/games/" + g.ID)
	require.Equal(t, http.StatusOK, code)
	list := body[strings.Index(body, `<table id="moves"`):]
	list = list[:strings.Index(list, `</table>`)]
	labels := regexp.MustCompile(`data-ply="(\d+)"[^>]*><small class="ply">(\d+)\.</small> ([a-j]\d+|pass)`).FindAllStringSubmatch(list, -1)
	require.Len(t, labels, len(g.Moves), "every move labelled")
	for i, l := range labels {
		assert.Equal(t, strconv.Itoa(i+1), l[1])
		assert.Equal(t, l[1], l[2], "the label is the move's ply")
		assert.Equal(t, g.Moves[i].Square, l[3])
	}
	assert.NotRegexp(t, `<th>\d+\.</th>`, list, "no pair numbers")
}

// TestReplayNotation: the header gives the discs black's first with the
// bot's colour, the summary names the worst move by its ply, and a side
// whose worst move lost less than an inaccuracy made "no mistake", on the
// replay and on the games list.
func TestReplayNotation(t *testing.T) {
	g := sampleGame(t, othello.Std, 1, 40, "Edax")
	h, a := analysedHandler(t, g)
	h.t = t
	// Black (the bot) loses 6 discs at its first move; white never loses.
	first := 0
	if a.Moves[0].Color != 1 {
		first = 1
	}
	for i := range a.Moves {
		a.Moves[i].Loss = 0
		a.Moves[i].Played = a.Moves[i].Score
		a.Moves[i].Forced = false
	}
	a.Moves[first].Loss = 6
	a.Moves[first].Played = a.Moves[first].Score - 6
	require.NoError(t, h.cfg.Games.SaveAnalysis(a))
	require.Equal(t, 1, g.MyColor)

	code, body := h.get("/games/" + g.ID)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, html.EscapeString(record.DiscsText(g.ResultDiscs, 1)))
	assert.Contains(t, body, "(bot black)")
	summary := body[strings.Index(body, `id="analysis-summary"`):]
	label := record.MoveLabel(first+1, a.Moves[first].Square)
	assert.Contains(t, summary, `data-ply="`+strconv.Itoa(first+1)+`" class="c-mistake">`+label+`</a> −6.0 (mistake)`)
	assert.Regexp(t, `○ [^<]*</td><td>0\.00</td><td>\d+</td><td>no mistake</td>`, summary)
	assert.NotContains(t, summary, "(best)")

	code, body = h.get("/games")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, html.EscapeString(record.DiscsText(g.Discs, 1)))
	assert.Contains(t, body, `class="c-mistake">`+label+` −6.0</a>`)

	// The bot's side without a mistake: the list says so.
	a.Moves[first].Loss = 0.5
	require.NoError(t, h.cfg.Games.SaveAnalysis(a))
	_, body = h.get("/games")
	assert.Contains(t, body, "<td>no mistake</td>")
}

func mustFrames(t *testing.T, g record.Game) []frame {
	f, err := replayFrames(g)
	require.NoError(t, err)
	return f
}

// TestReplayWithADamagedAnalysis: the replay shows the game and says the
// analysis is damaged; the page names no file.
func TestReplayWithADamagedAnalysis(t *testing.T) {
	g := sampleGame(t, othello.Std, 3, 3, "Greedy")
	h, _ := analysedHandler(t, g)
	h.t = t
	files, err := filepath.Glob(filepath.Join(h.cfg.Games.Status().Dir, "analysis", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	require.NoError(t, os.WriteFile(files[0], []byte(`{"schema":1,"game":"`+g.ID+`","moves":[]}`), 0o644))
	code, body := h.get("/games/" + g.ID)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, html.UnescapeString(body), "analysis is damaged")
	assert.NotContains(t, body, files[0])
	assert.NotContains(t, body, `id="analysis-summary"`)
	code, _ = h.get("/api/games/" + g.ID + "/analysis")
	assert.Equal(t, http.StatusInternalServerError, code)
}

// TestGamesListShowsTheAnalysis: the list gives the bot's mean loss per
// move and worst move for an analysed game (a dash for the others), and
// tallies every game that passes the filter by mode and by opponent.
func TestGamesListShowsTheAnalysis(t *testing.T) {
	oct := sampleGame(t, othello.Octagon, 2, 41, "Tenten")
	std := sampleGame(t, othello.Std, 1, 40, "Edax")
	std2 := sampleGame(t, othello.Std, 3, 42, "Edax")
	h, a := analysedHandler(t, oct, std, std2)
	h.t = t
	code, body := h.get("/games")
	require.Equal(t, http.StatusOK, code)
	sum := a.Summary()
	mean, _, worst := sum.Side(oct.MyColor)
	assert.Contains(t, body, `<td class="num">`+strconv.FormatFloat(mean, 'f', 2, 64)+`</td>`, "the bot's mean loss")
	assert.Contains(t, body, `href="/games/`+oct.ID+`?ply=`+strconv.Itoa(worst.Ply)+`"`, "its worst move, linked")
	assert.Contains(t, body, "1 of 3 analysed")
	tallies := body[strings.Index(body, `id="tallies"`):strings.Index(body, `id="analysed-count"`)]
	assert.Regexp(t, `<td>std</td><td class="num">2</td>`, tallies, "std first: two games")
	assert.Regexp(t, `<td>octagon</td><td class="num">1</td><td>\d–\d–\d</td><td>[\d.]+–[\d.]+</td><td class="num">`+
		regexp.QuoteMeta(strconv.FormatFloat(mean, 'f', 2, 64)), tallies)
	assert.Regexp(t, `<td>Edax</td><td class="num">2</td>`, tallies)
	assert.Contains(t, tallies, `<td>Tenten</td>`)

	_, body = h.get("/games?mode=std")
	tallies = body[strings.Index(body, `id="tallies"`):strings.Index(body, `id="analysed-count"`)]
	assert.NotContains(t, tallies, "octagon", "the tallies follow the filter")
	assert.Contains(t, body, "0 of 2 analysed")
}

// TestReplayOfAGameWithoutMoves: a leg stopped before its first move
// replays as its start, with an empty list and a one-point graph.
func TestReplayOfAGameWithoutMoves(t *testing.T) {
	g := sampleGame(t, othello.Grand, 4, 44, "Greedy")
	g.Moves = nil
	g.LegStatus = "stopped"
	require.NoError(t, g.Check())
	h, a := analysedHandler(t, g)
	h.t = t
	assert.Empty(t, a.Moves)
	code, body := h.get("/games/" + g.ID)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `data-ply="0" data-last="0"`)
	assert.Equal(t, 0, strings.Count(body, `class="mv `))
	assert.Equal(t, 1, strings.Count(body, `class="g-hit"`))
	assert.Contains(t, body, "No turning point")
}
