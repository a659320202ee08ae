package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

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
//	GET /api/games/{id}/ggf        one std game as GGF (download)
//	GET /api/games/{id}/jsonl      one game as a JSON-lines file (download)
//	GET /api/games/export.jsonl    every game that passes the filter
//	GET /api/games/export.ggf      every std game that passes the filter
func (h *Handler) gameRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /games", h.serveGames)
	mux.HandleFunc("GET /games/{id}", h.serveReplay)
	mux.HandleFunc("GET /api/games", h.serveAPIGames)
	mux.HandleFunc("GET /api/games/export.jsonl", h.serveExport("jsonl"))
	mux.HandleFunc("GET /api/games/export.ggf", h.serveExport("ggf"))
	mux.HandleFunc("GET /api/games/{id}", h.serveAPIGame)
	mux.HandleFunc("GET /api/games/{id}/{format}", h.serveGameDownload)
}

// gamesFilter reads the filter of a list request.
func gamesFilter(q url.Values) record.Filter {
	f := record.Filter{Mode: q.Get("mode"), Result: q.Get("result"), Opponent: strings.TrimSpace(q.Get("opponent"))}
	if _, err := othello.ParseMode(f.Mode); err != nil {
		f.Mode = ""
	}
	switch f.Result {
	case record.Win, record.Loss, record.Draw, record.Aborted:
	default:
		f.Result = ""
	}
	if len(f.Opponent) > 64 {
		f.Opponent = f.Opponent[:64]
	}
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
	Games   []record.Summary
	Total   int
	Filter  record.Filter
	Modes   []string
	Offset  int
	Prev    string
	Next    string
	Query   string
	Enabled bool
}

func (h *Handler) serveGames(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := gamesPage{pageData: pageData{Title: "Games", St: h.refreshed()}, Modes: settings.Modes(), Filter: gamesFilter(q),
		Enabled: h.cfg.Games != nil}
	if h.cfg.Games != nil {
		p.Offset = intParam(q, "offset", 0, 0, 1<<30)
		p.Games, p.Total = h.cfg.Games.List(p.Filter, p.Offset, gamesPerPage)
	}
	v := url.Values{}
	for k, s := range map[string]string{"mode": p.Filter.Mode, "result": p.Filter.Result, "opponent": p.Filter.Opponent} {
		if s != "" {
			v.Set(k, s)
		}
	}
	p.Query = v.Encode()
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

// frame is one position of a replay.
type frame struct {
	Ply   int
	Leg   state.Leg
	Move  *record.Move // the move that led here; nil at the start
	Clock [2]int64     // [black, white] remaining after it
	Discs [2]int
}

// replayPage is what the replay template gets.
type replayPage struct {
	pageData
	Game   record.Game
	Frames []frame
	Error  string
	GGF    bool
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
		h.log.Warn("read game", "game", id, "err", err)
		h.message(w, r, http.StatusInternalServerError, "Game unreadable", "The game could not be read: "+err.Error(), "/games")
		return record.Game{}, false
	}
	return g, true
}

func (h *Handler) serveReplay(w http.ResponseWriter, r *http.Request) {
	g, ok := h.gameOr404(w, r)
	if !ok {
		return
	}
	p := replayPage{pageData: pageData{Title: "Game " + g.ID, St: h.hub.Snapshot()}, Game: g, GGF: g.Mode == "std"}
	positions, err := g.Replay()
	if err != nil {
		p.Error = err.Error()
	}
	clock := [2]int64{g.ClockMS, g.ClockMS}
	for i, pos := range positions {
		b, wh := pos.Count()
		f := frame{Ply: i, Leg: state.Leg{BoardSize: g.BoardSize, Board: pos.Board(), Blocked: g.Blocked, LastMove: -2},
			Discs: [2]int{b, wh}}
		if i > 0 {
			m := g.Moves[i-1]
			f.Move = &m
			f.Leg.LastMove = m.Move
			if m.Color == 1 || m.Color == 2 {
				clock[m.Color-1] = m.ClockMS
			}
		}
		f.Clock = clock
		p.Frames = append(p.Frames, f)
	}
	h.render(w, http.StatusOK, "replay", p)
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
	q := r.URL.Query()
	out := struct {
		Games []record.Summary   `json:"games"`
		Total int                `json:"total"`
		Store record.StoreStatus `json:"store"`
	}{Games: []record.Summary{}}
	if h.cfg.Games != nil {
		out.Games, out.Total = h.cfg.Games.List(gamesFilter(q), intParam(q, "offset", 0, 0, 1<<30), intParam(q, "limit", gamesPerPage, 1, maxGamesAPI))
		out.Store = h.cfg.Games.Status()
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
		h.log.Warn("read game", "game", id, "err", err)
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

func (h *Handler) serveGameDownload(w http.ResponseWriter, r *http.Request) {
	format := r.PathValue("format")
	if format != "ggf" && format != "jsonl" {
		http.Error(w, "format is ggf or jsonl", http.StatusNotFound)
		return
	}
	g, ok := h.apiGame(w, r)
	if !ok {
		return
	}
	var body []byte
	ctype := "application/x-ndjson"
	if format == "ggf" {
		s, err := g.GGF()
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		body, ctype = []byte(s+"\n"), "text/plain; charset=utf-8"
	} else {
		line, err := g.MarshalLine()
		if err != nil {
			http.Error(w, "encode", http.StatusInternalServerError)
			return
		}
		body = line
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="flipbot-%s.%s"`, g.ID, format))
	w.Write(body)
}

func (h *Handler) serveExport(format string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		if h.cfg.Games != nil {
			f := gamesFilter(r.URL.Query())
			var err error
			if format == "ggf" {
				err = h.cfg.Games.WriteGGF(&buf, f)
			} else {
				err = h.cfg.Games.WriteJSONL(&buf, f)
			}
			if err != nil {
				h.log.Warn("export games", "err", err)
				http.Error(w, "games unreadable", http.StatusInternalServerError)
				return
			}
		}
		ctype := "application/x-ndjson"
		if format == "ggf" {
			ctype = "text/plain; charset=utf-8"
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Disposition", `attachment; filename="flipbot-games.`+format+`"`)
		w.Write(buf.Bytes())
	}
}
