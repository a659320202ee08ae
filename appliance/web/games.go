package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/othello"
)

// Page sizes of the games list and /api/games.
const (
	gamesPerPage = 50
	maxGamesAPI  = 500
)

// gameRoutes adds the games pages and their API:
//
//	GET /games                     the list, filtered by mode, result, opponent
//	GET /games/{id}                the replay of one game
//	GET /api/games                 the list as JSON (offset, limit ≤ 500)
//	GET /api/games/{id}            one game, its JSON-lines record
//	GET /api/games/{id}/ggf        one game as GGF (download; not for reversi)
//	GET /api/games/{id}/jsonl      one game as a JSON-lines file (download)
//	GET /api/games/{id}/analysis   one game's analysis (bot/record's JSON; 404 until analysed)
//	GET /api/games/export.jsonl    every game that passes the filter
//	GET /api/games/export.ggf      every game but reversi that passes the filter
func (h *Handler) gameRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /games", h.serveGames)
	mux.HandleFunc("GET /games/{id}", h.serveReplay)
	mux.HandleFunc("GET /api/games", h.serveAPIGames)
	mux.HandleFunc("GET /api/games/export.jsonl", h.serveExport(record.FormatJSONL))
	mux.HandleFunc("GET /api/games/export.ggf", h.serveExport(record.FormatGGF))
	mux.HandleFunc("GET /api/games/{id}", h.serveAPIGame)
	mux.HandleFunc("GET /api/games/{id}/analysis", h.serveAPIAnalysis)
	mux.HandleFunc("GET /api/games/{id}/{format}", h.serveGameDownload)
}

// gamesFilter reads the filter of a list request (record.ParseFilter): a
// value it refuses selects everything, an opponent too long is cut.
func gamesFilter(q url.Values) record.Filter {
	f, _ := record.ParseFilter(q.Get("mode"), q.Get("result"), q.Get("opponent"))
	return f
}

func intParam(q url.Values, name string, def, lo, hi int) int {
	n, err := strconv.Atoi(q.Get(name))
	if err != nil {
		return def
	}
	return min(max(n, lo), hi)
}

// gamesPage is what the games list template gets.
type gamesPage struct {
	pageData
	Games  []record.Summary
	Total  int
	Filter record.Filter
	Modes  []string
	Offset int
	Prev   string
	Next   string
	// The links of the filtered list: whole URLs, the query encoded once
	// (a query put into an href by the template had its = and & escaped).
	ExportJSONL template.URL
	ExportGGF   template.URL
	JSON        template.URL
	Enabled     bool
	// ByMode and ByOpponent tally every game that passes the filter (not
	// only this page's); MoreOpponents counts the opponents left out.
	ByMode        []record.Tally
	ByOpponent    []record.Tally
	MoreOpponents int
	Analysed      int
	Thresholds    [3]float64
}

// maxOpponentRows bounds the opponents the games page tallies.
const maxOpponentRows = 12

func (h *Handler) serveGames(w http.ResponseWriter, r *http.Request) {
	if !h.listSlotTaken(w) {
		return
	}
	defer h.listSlotFree()
	q := r.URL.Query()
	p := gamesPage{pageData: pageData{Title: "Games", St: h.refreshed()}, Modes: settings.Modes(), Filter: gamesFilter(q),
		Enabled: h.cfg.Games != nil}
	p.Thresholds = [3]float64{record.InaccuracyLoss, record.MistakeLoss, record.BlunderLoss}
	if h.cfg.Games != nil {
		p.Offset = intParam(q, "offset", 0, 0, 1<<30)
		p.Games, p.Total = h.cfg.Games.List(p.Filter, p.Offset, gamesPerPage)
		ov := h.cfg.Games.Overview(p.Filter, maxOpponentRows)
		p.ByMode, p.ByOpponent, p.MoreOpponents, p.Analysed = ov.ByMode, ov.ByOpponent, ov.MoreOpponents, ov.Analysed
	}
	v := url.Values{}
	for k, s := range map[string]string{"mode": p.Filter.Mode, "result": p.Filter.Result, "opponent": p.Filter.Opponent} {
		if s != "" {
			v.Set(k, s)
		}
	}
	link := func(path string) template.URL {
		if len(v) == 0 {
			return template.URL(path)
		}
		return template.URL(path + "?" + v.Encode()) // encoded by url.Values: safe in an href
	}
	p.ExportJSONL, p.ExportGGF, p.JSON = link("/api/games/export.jsonl"), link("/api/games/export.ggf"), link("/api/games")
	page := func(off int) string {
		v2 := url.Values{}
		for k, s := range v {
			v2[k] = s
		}
		v2.Set("offset", strconv.Itoa(off))
		return "/games?" + v2.Encode()
	}
	if p.Offset > 0 {
		p.Prev = page(max(0, p.Offset-gamesPerPage))
	}
	if p.Offset+gamesPerPage < p.Total {
		p.Next = page(p.Offset + gamesPerPage)
	}
	h.render(w, http.StatusOK, "games", p)
}

// Lists: each costs its page (record.Store.List and Overview), and at
// most maxListsAtOnce run at once; the others are told to come back after
// listRetryAfter (429).
const (
	maxListsAtOnce = 4
	listRetryAfter = time.Second
)

// listSlotTaken takes a place for a list request, or answers 429 with a
// Retry-After and returns false when every place is taken.
func (h *Handler) listSlotTaken(w http.ResponseWriter) bool {
	select {
	case h.listSlot <- struct{}{}:
		return true
	default:
		w.Header().Set("Retry-After", strconv.Itoa(int(listRetryAfter/time.Second)))
		http.Error(w, "too many game lists at once; try again in a second", http.StatusTooManyRequests)
		return false
	}
}

// listSlotFree gives back the place listSlotTaken took.
func (h *Handler) listSlotFree() { <-h.listSlot }

// frame is one position of a replay.
type frame struct {
	Ply   int
	Leg   state.Leg
	Move  *record.Move // the move that led here; nil at the start
	Clock [2]int64     // [black, white] remaining after it
	Discs [2]int
}

func (h *Handler) gameOr404(w http.ResponseWriter, r *http.Request) (record.Game, bool) {
	id := r.PathValue("id")
	if h.cfg.Games == nil || !record.ValidID(id) {
		h.message(w, r, http.StatusNotFound, "No such game", "There is no game "+strconv.Quote(id)+".", "/games")
		return record.Game{}, false
	}
	g, err := h.cfg.Games.Get(id)
	if errors.Is(err, record.ErrNotFound) {
		h.message(w, r, http.StatusNotFound, "No such game", "There is no game "+id+" (it may have been rotated away).", "/games")
		return record.Game{}, false
	}
	if err != nil {
		// The visitor learns that the record is damaged; what and where
		// (a file path, the decoder's words) goes to the log, which only
		// the owner reads.
		h.refused.note("game record unreadable", "game", id, "bad_record", errors.Is(err, record.ErrBadGame), "err", err)
		h.message(w, r, http.StatusInternalServerError, "Game damaged",
			"This game's record is damaged and cannot be shown (details in the device's log).", "/games")
		return record.Game{}, false
	}
	return g, true
}

// replayFrames returns the positions of g, move by move, as far as they
// replay. The blocked squares drawn are the mode's own
// (othello.Mode.BlockedSquares), never the record's list.
func replayFrames(g record.Game) ([]frame, error) {
	mode, err := othello.ParseMode(g.Mode)
	if err != nil {
		return nil, fmt.Errorf("game %s: %w", g.ID, err)
	}
	blocked := mode.BlockedSquares()
	positions, err := g.Replay()
	frames := make([]frame, 0, len(positions))
	clock := [2]int64{g.ClockMS, g.ClockMS}
	for i, pos := range positions {
		b, wh := pos.Count()
		f := frame{Ply: i, Leg: state.Leg{BoardSize: mode.Size(), Board: pos.Board(), Blocked: blocked, LastMove: -2},
			Discs: [2]int{b, wh}}
		if i > 0 && i-1 < len(g.Moves) {
			m := g.Moves[i-1]
			f.Move = &m
			f.Leg.LastMove = m.Move
			if m.Color == 1 || m.Color == 2 {
				clock[m.Color-1] = m.ClockMS
			}
		}
		f.Clock = clock
		frames = append(frames, f)
	}
	return frames, err
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, "encode", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(b, '\n'))
}

func (h *Handler) serveAPIGames(w http.ResponseWriter, r *http.Request) {
	if !h.listSlotTaken(w) {
		return
	}
	defer h.listSlotFree()
	q := r.URL.Query()
	out := struct {
		Games []record.Summary `json:"games"`
		Total int              `json:"total"`
		Store state.GameStore  `json:"store"`
	}{Games: []record.Summary{}}
	if h.cfg.Games != nil {
		out.Games, out.Total = h.cfg.Games.List(gamesFilter(q), intParam(q, "offset", 0, 0, 1<<30), intParam(q, "limit", gamesPerPage, 1, maxGamesAPI))
		out.Store = state.GameStoreOf(h.cfg.Games.Status())
	}
	writeJSON(w, out)
}

func (h *Handler) apiGame(w http.ResponseWriter, r *http.Request) (record.Game, bool) {
	id := r.PathValue("id")
	if h.cfg.Games == nil || !record.ValidID(id) {
		http.Error(w, "no such game", http.StatusNotFound)
		return record.Game{}, false
	}
	g, err := h.cfg.Games.Get(id)
	if errors.Is(err, record.ErrNotFound) {
		http.Error(w, "no such game", http.StatusNotFound)
		return record.Game{}, false
	}
	if err != nil {
		h.refused.note("read game", "game", id, "err", err)
		http.Error(w, "game unreadable", http.StatusInternalServerError)
		return record.Game{}, false
	}
	return g, true
}

func (h *Handler) serveAPIGame(w http.ResponseWriter, r *http.Request) {
	if g, ok := h.apiGame(w, r); ok {
		writeJSON(w, g)
	}
}

func (h *Handler) serveAPIAnalysis(w http.ResponseWriter, r *http.Request) {
	g, ok := h.apiGame(w, r)
	if !ok {
		return
	}
	a, err := h.cfg.Games.Analysis(g.ID)
	switch {
	case errors.Is(err, record.ErrNoAnalysis):
		http.Error(w, "game not analysed yet", http.StatusNotFound)
		return
	case err != nil:
		h.refused.note("read game analysis", "game", g.ID, "err", err)
		http.Error(w, "analysis unreadable", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="flipbot-%s-analysis.json"`, g.ID))
	writeJSON(w, a)
}

func (h *Handler) serveGameDownload(w http.ResponseWriter, r *http.Request) {
	format, err := record.ParseFormat(r.PathValue("format"))
	if err != nil {
		http.Error(w, "format is ggf or jsonl", http.StatusNotFound)
		return
	}
	g, ok := h.apiGame(w, r)
	if !ok {
		return
	}
	if !format.Expresses(g.Mode) {
		http.Error(w, fmt.Sprintf("game %s is %s: %s", g.ID, g.Mode, record.ErrNotStd), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", format.ContentType())
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="flipbot-%s.%s"`, g.ID, format))
	if err := record.NewWriter(w, format).Write(&g); err != nil {
		h.log.Debug("game download", "game", g.ID, "err", err)
	}
}

// Exports: one at a time (each reads the whole store from the card), the
// others told to come back after exportRetryAfter; the write deadline
// moves on by exportWriteWindow with every game written, so that a long
// export over a slow link is not cut while a client that stops reading is.
const (
	exportRetryAfter  = 10 * time.Second
	exportWriteWindow = 30 * time.Second
	exportBuffer      = 32 << 10
)

// serveExport streams every game that passes the query's filter in format,
// game by game (record.Store.Export): it holds one game and a 32 KiB buffer,
// whatever the size of the store, and stops between two games when the
// client has gone. One export runs at a time; another gets 429 with a
// Retry-After.
func (h *Handler) serveExport(format record.Format) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case h.exportSlot <- struct{}{}:
			defer func() { <-h.exportSlot }()
		default:
			w.Header().Set("Retry-After", strconv.Itoa(int(exportRetryAfter/time.Second)))
			http.Error(w, "another export is running; try again in a few seconds", http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", format.ContentType())
		w.Header().Set("Content-Disposition", `attachment; filename="flipbot-games.`+string(format)+`"`)
		if h.cfg.Games == nil {
			return
		}
		sent := &countingWriter{w: w}
		buf := bufio.NewWriterSize(sent, exportBuffer)
		out := &gameByGame{ctx: r.Context(), w: buf, rc: http.NewResponseController(w)}
		st, err := h.cfg.Games.Export(out, format, gamesFilter(r.URL.Query()))
		if err == nil {
			err = buf.Flush()
		}
		switch {
		case err == nil:
		case r.Context().Err() != nil:
			h.log.Debug("export stopped: the client has gone", "written", st.Written)
		case sent.n == 0: // nothing sent yet: the status can still say so
			h.refused.note("export games", "err", err)
			http.Error(w, "games unreadable", http.StatusInternalServerError)
		default:
			// Half an export must not look like a whole one: the
			// connection is cut, so the client sees an incomplete answer.
			h.log.Warn("export games failed on the way", "written", st.Written, "err", err)
			panic(http.ErrAbortHandler)
		}
	}
}

// gameByGame is the writer an export writes to: record.Writer passes it
// one game per Write. Before each game it checks that the client is still
// there (ctx) and moves the connection's write deadline on.
type gameByGame struct {
	ctx context.Context
	w   io.Writer
	rc  *http.ResponseController
}

// Write passes one game on, or fails with the context's error when the
// request has ended.
func (g *gameByGame) Write(p []byte) (int, error) {
	if err := g.ctx.Err(); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	// Not every ResponseWriter has deadlines (tests); the server's own
	// WriteTimeout then applies.
	_ = g.rc.SetWriteDeadline(time.Now().Add(exportWriteWindow))
	return g.w.Write(p)
}

// countingWriter counts the bytes written to w.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
