package arena

import (
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/boardview"
)

//go:embed web/page.html web/replay.html
var webFS embed.FS

// parsePage parses the page templates, once per server (no package-level
// state).
func parsePage() *template.Template {
	return template.Must(template.New("page.html").Funcs(template.FuncMap{
		"sq":          func(sq, size int) string { return othello.SquareName(sq, size) },
		"boardCSS":    func() template.CSS { return template.CSS(boardview.CSS) },
		"levels":      Levels,
		"keptResults": func() int { return KeptResults },
	}).ParseFS(webFS, "web/page.html", "web/replay.html"))
}

// Snapshot is the page's view of the arena, also served as
// /arena/state.json.
type Snapshot struct {
	Now     int64       `json:"server_now_ms"`
	Bots    []BotView   `json:"bots"`
	Live    []MatchView `json:"live"`
	Pending []MatchView `json:"pending"`
	Recent  []MatchView `json:"recent"`
}

// BotView is a bot on the page.
type BotView struct {
	ID      int64    `json:"id"`
	Name    string   `json:"name"`
	Builtin bool     `json:"is_builtin"`
	Online  bool     `json:"online"`
	Modes   []string `json:"supported_games"`
	Running int      `json:"running"`
	Engine  string   `json:"engine"`
	// The bot's rating (Glicko-2, rating.go) and its rated matches.
	Rating float64 `json:"rating"`
	RD     float64 `json:"rd"`
	Wins   int     `json:"wins"`
	Draws  int     `json:"draws"`
	Losses int     `json:"losses"`
}

// MatchView is a match on the page.
type MatchView struct {
	ID     int64     `json:"id"`
	Mode   string    `json:"game_mode"`
	A      string    `json:"a"`
	B      string    `json:"b"`
	Status string    `json:"status"`
	Reason string    `json:"finish_reason"`
	Totals [2]int    `json:"totals"`
	Winner string    `json:"winner"`
	Legs   []LegView `json:"legs"`
	// Round is a human room's round (its rounds share the match id).
	Round int64 `json:"round,omitempty"`
	// Replay is the page that replays an ended match's legs.
	Replay string `json:"replay,omitempty"`
}

// LegView is a live board.
type LegView struct {
	Size    int        `json:"size"`
	Rows    [][]string `json:"rows"` // cell classes: e, b, w, x (blocked), with " last" / " legal"
	Black   string     `json:"black"`
	White   string     `json:"white"`
	Turn    string     `json:"turn"`
	ClockB  string     `json:"clock_black"`
	ClockW  string     `json:"clock_white"`
	Last    string     `json:"last"`
	Discs   [2]int     `json:"discs"`
	Status  string     `json:"status"`
	Moves   int        `json:"moves"`
	Running bool       `json:"running"`
	// Short marks a clock under ShortClock: black's, white's.
	Short [2]bool `json:"short"`
	// Board is the board drawn by internal/boardview, with coordinates
	// and the last move marked.
	Board template.HTML `json:"-"`
}

// ShortClock returns the remaining time under which a clock of clockMS
// per leg shows red on the page: 10 s, or a sixth of the clock when that
// is less (5 s of the demo's 30 s), so a clock is red only when its side
// is short of time.
func ShortClock(clockMS int64) int64 { return min(10_000, clockMS/6) }

// Snapshot returns the arena's current view.
func (s *Server) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.nowMS()
	s.advanceAll(now)
	snap := Snapshot{Now: now, Bots: []BotView{}, Live: []MatchView{}, Pending: []MatchView{}, Recent: []MatchView{}}
	for _, b := range s.bots {
		v := BotView{ID: b.id, Name: b.name, Builtin: b.builtin, Online: s.online(b, now), Modes: b.modeList, Running: s.running(b),
			Rating: b.rating.Rating, RD: b.rating.RD, Wins: b.rating.wins, Draws: b.rating.draws, Losses: b.rating.losses}
		switch {
		case b.sessions != nil:
			v.Engine = b.sessions.name
		case b.builtin:
			v.Engine = b.engine.Name()
		case b.env != nil:
			v.Engine = b.env.Engine
		}
		snap.Bots = append(snap.Bots, v)
	}
	ms := s.sortedMatches()
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		switch m.status {
		case flipsight.MatchRunning:
			snap.Live = append(snap.Live, s.matchView(m, now))
		case flipsight.MatchPending:
			snap.Pending = append(snap.Pending, s.matchView(m, now))
		}
	}
	// The results: the last KeptResults ended matches, newest first, each
	// with its replay, however long ago the API forgot them.
	for i := len(s.results) - 1; i >= 0; i-- {
		snap.Recent = append(snap.Recent, s.results[i].view())
	}
	return snap
}

func (s *Server) matchView(m *match, now int64) MatchView {
	a, b := s.botName(m.botA), s.botName(m.botB)
	v := MatchView{ID: m.id, Mode: m.mode.String(), A: a, B: b, Status: m.status}
	if m.reason != nil {
		v.Reason = *m.reason
	}
	if m.legs != nil {
		v.Totals = m.totals()
	}
	if m.status == flipsight.MatchFinished || m.status == flipsight.MatchAborted {
		v.Winner = winnerName(m.winner, a, b)
	}
	names := [2]string{a, b}
	for _, l := range m.legs {
		v.Legs = append(v.Legs, legView(m, l, names, now))
	}
	return v
}

func legView(m *match, l *leg, names [2]string, now int64) LegView {
	size := m.mode.Size()
	last := -2
	if n := len(l.history); n > 0 {
		last = l.history[n-1].Move.Square
	}
	legal := othello.Bits{}
	if l.active() {
		legal = l.pos.Legal()
	}
	blocked := m.mode.Blocked()
	rows := make([][]string, size)
	for r := 0; r < size; r++ {
		rows[r] = make([]string, size)
		for c := 0; c < size; c++ {
			sq := r*size + c
			cl := "e"
			switch {
			case blocked.Has(sq):
				cl = "x"
			case l.pos.Black.Has(sq):
				cl = "b"
			case l.pos.White.Has(sq):
				cl = "w"
			case legal.Has(sq):
				cl = "e legal"
			}
			if sq == last {
				cl += " last"
			}
			rows[r][c] = cl
		}
	}
	clk := l.clocks
	if l.active() {
		clk[l.pos.Turn-1] = max(0, l.remaining(now))
	}
	b, w := l.pos.Count()
	v := LegView{
		Size: size, Rows: rows, Black: names[l.black], White: names[1-l.black],
		ClockB: fmtClock(clk[0]), ClockW: fmtClock(clk[1]), Discs: [2]int{b, w},
		Status: l.status, Moves: len(l.history), Running: l.active(),
	}
	for c := range clk {
		v.Short[c] = clk[c] < ShortClock(m.clockMS)
	}
	lastSq := -1
	if last >= 0 {
		lastSq = last
	}
	v.Board = boardview.Board{Size: size, Cells: cells(m.mode, l.pos), Last: lastSq, Best: -1, Legal: legal.Squares(),
		Label: fmt.Sprintf("%s vs %s, %d moves", v.Black, v.White, v.Moves)}.SVG()
	if l.active() {
		v.Turn = l.pos.Turn.String()
	}
	if last >= -1 {
		v.Last = othello.SquareName(last, size)
	}
	return v
}

func fmtClock(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	return time.Time{}.Add(d).Format("4:05.0")
}

// pageData is the page template's data: the snapshot and the URLs a bot
// client is given.
type pageData struct {
	Snapshot
	API, Stream string
	Default     int // the built-in bots' default level
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	s.renderPage(w, r, "page")
}

func (s *Server) serveLive(w http.ResponseWriter, r *http.Request) {
	s.renderPage(w, r, "live")
}

func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, name string) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://" + r.Host
	data := pageData{Snapshot: s.Snapshot(), API: base + APIPath, Stream: base + StreamPath, Default: DefaultBuiltinLevel}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := s.page.ExecuteTemplate(w, name, data); err != nil {
		s.log.Warn("page", "err", err)
	}
}

func (s *Server) serveStateJSON(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Snapshot())
}
