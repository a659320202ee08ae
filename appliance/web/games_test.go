package web

import (
	"context"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// sampleGame plays a leg of mode by the rules from a random 8-move
// opening, recorded as the bot records it.
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

// gamesHandler is a Handler whose store holds n std games.
func gamesHandler(t *testing.T, n int) testHandler {
	t.Helper()
	store := record.Open(record.Options{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	for i := range n {
		require.NoError(t, store.Add(sampleGame(t, othello.Std, uint64(i+1), int64(i+1), "Greedy")))
	}
	h, err := New(Config{Hub: state.NewHub(nil), Backend: stubBackend{}, Games: store, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return testHandler{t: t, Handler: h}
}

// watchedWriter is a ResponseWriter that records its largest single
// write and can run a hook on every write.
type watchedWriter struct {
	*httptest.ResponseRecorder
	mu      sync.Mutex
	largest int
	onWrite func()
}

func (w *watchedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.largest = max(w.largest, len(p))
	hook := w.onWrite
	w.mu.Unlock()
	if hook != nil {
		hook()
	}
	return w.ResponseRecorder.Write(p)
}

func exportRequest(ctx context.Context, path string) *http.Request {
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	req.Host = "127.0.0.1"
	return req
}

// TestExportStreamsGameByGame: the export reaches the client in pieces of
// the buffer's size, not as one body built in memory (8,505 games took
// the device from 54 to 274 MB before).
func TestExportStreamsGameByGame(t *testing.T) {
	const n = 120
	h := gamesHandler(t, n)
	for _, path := range []string{"/api/games/export.jsonl", "/api/games/export.ggf"} {
		w := &watchedWriter{ResponseRecorder: httptest.NewRecorder()}
		h.ServeHTTP(w, exportRequest(context.Background(), path))
		require.Equal(t, http.StatusOK, w.Code, path)
		body := w.Body.String()
		assert.Equal(t, n, strings.Count(body, "\n"), path)
		require.Greater(t, len(body), 2*exportBuffer, "%s: the test needs an export of several buffers", path)
		assert.LessOrEqual(t, w.largest, exportBuffer, "%s: largest single write", path)
	}
}

// TestExportStopsWhenTheClientHasGone: once the request's context ends,
// no further game is read or written (before, the whole export was built
// whatever the client did: clients that hung up after 0.3 s drove the
// device to 1.10 GB).
func TestExportStopsWhenTheClientHasGone(t *testing.T) {
	const n = 120
	h := gamesHandler(t, n)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := &watchedWriter{ResponseRecorder: httptest.NewRecorder()}
	h.ServeHTTP(w, exportRequest(ctx, "/api/games/export.jsonl"))
	assert.Zero(t, w.Body.Len(), "a client gone before the first game gets nothing")

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	w = &watchedWriter{ResponseRecorder: httptest.NewRecorder(), onWrite: cancel}
	h.ServeHTTP(w, exportRequest(ctx, "/api/games/export.jsonl"))
	lines := strings.Count(w.Body.String(), "\n")
	assert.Positive(t, lines)
	assert.Less(t, lines, n/2, "the export stops at the first game after the client went")
}

// TestOneExportAtATime: while an export runs, another is answered 429
// with a Retry-After; once it is over, the next runs.
func TestOneExportAtATime(t *testing.T) {
	h := gamesHandler(t, 20)
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	first := &watchedWriter{ResponseRecorder: httptest.NewRecorder(), onWrite: func() {
		once.Do(func() { close(entered); <-release })
	}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(first, exportRequest(context.Background(), "/api/games/export.jsonl"))
	}()
	<-entered
	for _, path := range []string{"/api/games/export.jsonl", "/api/games/export.ggf"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, exportRequest(context.Background(), path))
		assert.Equal(t, http.StatusTooManyRequests, w.Code, path)
		assert.Equal(t, "10", w.Header().Get("Retry-After"), path)
	}
	close(release)
	<-done
	assert.Equal(t, http.StatusOK, first.Code)
	assert.Equal(t, 20, strings.Count(first.Body.String(), "\n"))
	code, body := h.get("/api/games/export.jsonl")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, 20, strings.Count(body, "\n"))
}

// TestGameDownloadFormats: a game downloads in the formats that express
// its mode; another format or mode is 404.
func TestGameDownloadFormats(t *testing.T) {
	h := gamesHandler(t, 1)
	anti := sampleGame(t, othello.Anti, 99, 99, "Greedy")
	require.NoError(t, h.cfg.Games.Add(anti))
	rev := sampleGame(t, othello.Reversi, 98, 98, "Classic")
	require.NoError(t, h.cfg.Games.Add(rev))
	std, _ := h.cfg.Games.List(record.Filter{Mode: "std"}, 0, 1)
	require.Len(t, std, 1)
	for path, want := range map[string]int{
		"/api/games/" + std[0].ID + "/ggf":   http.StatusOK,
		"/api/games/" + std[0].ID + "/jsonl": http.StatusOK,
		"/api/games/" + std[0].ID + "/xml":   http.StatusNotFound,
		"/api/games/" + anti.ID + "/jsonl":   http.StatusOK,
		"/api/games/" + anti.ID + "/ggf":     http.StatusOK, // GGS's 8a
		"/api/games/" + rev.ID + "/ggf":      http.StatusNotFound,
	} {
		code, _ := h.get(path)
		assert.Equal(t, want, code, path)
	}
}

// TestFilteredLinksKeepTheFilter: the download and JSON links of a
// filtered list carry the filter (the template escaped the query's = and
// &: /api/games?mode%3danti), and so do the pages' links.
func TestFilteredLinksKeepTheFilter(t *testing.T) {
	h := gamesHandler(t, 60)
	code, body := h.get("/games?mode=std&result=win&opponent=Gr%C3%A9edy+%26+co")
	require.Equal(t, http.StatusOK, code)
	links := map[string]string{}
	for _, m := range regexp.MustCompile(`<a href="([^"]*)"( id="([^"]*)")?`).FindAllStringSubmatch(body, -1) {
		links[m[3]] = html.UnescapeString(m[1])
	}
	for id, path := range map[string]string{"export-jsonl": "/api/games/export.jsonl", "export-ggf": "/api/games/export.ggf", "games-json": "/api/games"} {
		u, err := url.Parse(links[id])
		require.NoError(t, err, id)
		assert.Equal(t, path, u.Path, id)
		assert.Equal(t, url.Values{"mode": {"std"}, "result": {"win"}, "opponent": {"Gréedy & co"}}, u.Query(), "%s: %s", id, links[id])
	}
	code, body = h.get("/games")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `<a href="/api/games/export.jsonl" id="export-jsonl">`, "no filter, no query")
}

// TestReplayDrawsTheModesBlockedSquares: the replay draws the mode's own
// blocked squares, whatever list the record holds (a record with 599,999
// blocked squares made one replay take 4.1 s and 190 MB before the store
// checked them; the page trusts the list no more).
func TestReplayDrawsTheModesBlockedSquares(t *testing.T) {
	for _, mode := range []othello.Mode{othello.Octagon, othello.Std} {
		g := sampleGame(t, mode, 7, 7, "Greedy")
		g.Blocked = make([]int, 100_000)
		frames, err := replayFrames(g)
		require.NoError(t, err, mode)
		require.Len(t, frames, len(g.Moves)+1, mode)
		for _, f := range frames {
			assert.Equal(t, mode.BlockedSquares(), f.Leg.Blocked, "%s ply %d", mode, f.Ply)
		}
	}
}

// TestDamagedRecordPage: a record that cannot be read shows a page saying
// the record is damaged, without the file's path or the decoder's words,
// and the detail goes to the log.
func TestDamagedRecordPage(t *testing.T) {
	dir := t.TempDir()
	store := record.Open(record.Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	g := sampleGame(t, othello.Std, 3, 3, "Greedy")
	require.NoError(t, store.Add(g))
	var logs strings.Builder
	var mu sync.Mutex
	h, err := New(Config{Hub: state.NewHub(nil), Backend: stubBackend{}, Games: store,
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))})
	require.NoError(t, err)
	h.refused = newRefusalLog(h.log, 50*time.Millisecond)
	th := testHandler{t: t, Handler: h}

	files, err := filepath.Glob(filepath.Join(dir, "games-*.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	fi, err := os.Stat(files[0])
	require.NoError(t, err)
	// Same length, other bytes: the stored line no longer decodes.
	require.NoError(t, os.WriteFile(files[0], []byte(strings.Repeat("x", int(fi.Size()-1))+"\n"), 0o600))
	code, body := th.get("/games/" + g.ID)
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Contains(t, body, "record is damaged")
	assert.NotContains(t, body, dir)
	assert.NotContains(t, body, "invalid character")
	assert.NotContains(t, body, record.ErrBadGame.Error())

	require.NoError(t, os.Remove(files[0]))
	code, body = th.get("/games/" + g.ID)
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Contains(t, body, "record is damaged")
	assert.NotContains(t, body, dir, "no file path on the page")
	logged := func() string { mu.Lock(); defer mu.Unlock(); return logs.String() }
	assert.Contains(t, logged(), "bad_record=true")
	// The second failure of the kind is in the interval's line.
	assert.Eventually(t, func() bool { return strings.Contains(logged(), dir) }, 5*time.Second, 10*time.Millisecond, "the log has the detail")
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestListsAtMostFourAtOnce: while maxListsAtOnce game lists are being
// made, another (/games or /api/games) is told 429 with Retry-After: 1;
// once one ends, lists are served again. Before, every request ran at
// once, each copying the summaries of every game.
func TestListsAtMostFourAtOnce(t *testing.T) {
	h := gamesHandler(t, 3)
	release := make(chan struct{})
	var entered sync.WaitGroup
	var done sync.WaitGroup
	held := make([]*watchedWriter, maxListsAtOnce)
	for i := range held {
		var once sync.Once
		entered.Add(1)
		held[i] = &watchedWriter{ResponseRecorder: httptest.NewRecorder(), onWrite: func() {
			once.Do(func() { entered.Done(); <-release })
		}}
		path := []string{"/api/games?limit=1", "/games"}[i%2]
		done.Go(func() { h.ServeHTTP(held[i], exportRequest(context.Background(), path)) })
	}
	entered.Wait()
	for _, path := range []string{"/api/games", "/api/games?limit=500&mode=std", "/games", "/games?opponent=x"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, exportRequest(context.Background(), path))
		assert.Equal(t, http.StatusTooManyRequests, w.Code, path)
		assert.Equal(t, "1", w.Header().Get("Retry-After"), path)
	}
	code, _ := h.get("/api/games/export.jsonl")
	assert.Equal(t, http.StatusOK, code, "exports and single games are not lists")
	close(release)
	done.Wait()
	for _, w := range held {
		assert.Equal(t, http.StatusOK, w.Code)
	}
	code, body := h.get("/api/games?limit=2")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, 2, strings.Count(body, `"id"`))
	code, _ = h.get("/games")
	assert.Equal(t, http.StatusOK, code)
}

// TestGamesPageCountsEveryGameAndShowsAPage: the games page shows one
// page of the games that pass the filter and tallies all of them (by
// mode, by the twelve largest opponents and "more"), from the store's
// index and running tallies.
func TestGamesPageCountsEveryGameAndShowsAPage(t *testing.T) {
	store := record.Open(record.Options{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	for i := range 56 {
		mode := []othello.Mode{othello.Std, othello.Anti}[i%2]
		require.NoError(t, store.Add(sampleGame(t, mode, uint64(i+1), int64(i+1), fmt.Sprintf("Bot%02d", i%14))))
	}
	h, err := New(Config{Hub: state.NewHub(nil), Backend: stubBackend{}, Games: store, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	th := testHandler{t: t, Handler: h}
	code, body := th.get("/games")
	require.Equal(t, http.StatusOK, code)
	games := regexp.MustCompile(`(?s)<table class="results" id="games">.*?</table>`).FindString(body)
	assert.Equal(t, 50, strings.Count(games, `>replay</a>`), "one page")
	assert.Contains(t, body, `id="games-count">56 games`)
	assert.Contains(t, body, "0 of 56 analysed")
	assert.Contains(t, body, "<td>std</td><td class=\"num\">28</td>")
	assert.Contains(t, body, "<td>anti</td><td class=\"num\">28</td>")
	assert.Contains(t, body, "and 2 more", "14 opponents, 12 shown")
	assert.Contains(t, body, `href="/games?offset=50">older`)

	code, body = th.get("/games?offset=50")
	require.Equal(t, http.StatusOK, code)
	games = regexp.MustCompile(`(?s)<table class="results" id="games">.*?</table>`).FindString(body)
	assert.Equal(t, 6, strings.Count(games, `>replay</a>`), "the last page")

	code, body = th.get("/games?opponent=bot0&mode=anti")
	require.Equal(t, http.StatusOK, code)
	// Bot00–Bot09 against anti: the odd games, i%14 < 10.
	want := 0
	for i := range 56 {
		if i%2 == 1 && i%14 < 10 {
			want++
		}
	}
	assert.Contains(t, body, fmt.Sprintf(`id="games-count">%d games`, want))
	assert.NotContains(t, body, "<td>std</td>")
}
