package arena

import (
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/boardview"
)

// KeptResults is how many ended matches the page lists, each with its
// replay (/arena/matches/ID), however long ago they ended: the newest,
// kept apart from the API's matches, which are forgotten KeepFinished
// after they end.
const KeptResults = 50

// result is an ended match as the page lists and replays it: a copy taken
// when it ended, which nothing changes afterwards. Guarded by Server.mu
// (the list; a result itself is never written after it is made).
type result struct {
	id     int64
	round  int64 // human rooms: the round (a room's rounds share its id)
	mode   othello.Mode
	a, b   string
	status string
	reason string
	winner string
	totals [2]int
	endMS  int64
	legs   []legResult
}

// legResult is one leg of an ended match.
type legResult struct {
	start   othello.Position
	names   [2]string // black's, white's
	startMS int64
	clockMS int64
	history []flipsight.HistoryEntry
	final   [2]int64 // the clocks at the end, black's and white's
	status  string
}

// ended notes that m has ended at its endMS (finished, aborted, rejected
// or expired): prune forgets it KeepFinished later, and the page keeps its
// result among the last KeptResults.
func (s *Server) ended(m *match) {
	s.finished = append(s.finished, m.id)
	r := &result{id: m.id, mode: m.mode, a: s.botName(m.botA), b: s.botName(m.botB), status: m.status, endMS: m.endMS}
	if m.human {
		r.round = m.roundNo
	}
	if m.reason != nil {
		r.reason = *m.reason
	}
	if m.legs != nil {
		r.totals = m.totals()
	}
	if m.status == flipsight.MatchFinished || m.status == flipsight.MatchAborted {
		r.winner = winnerName(m.winner, r.a, r.b)
	}
	names := [2]string{r.a, r.b}
	for _, l := range m.legs {
		start := m.start
		if m.human {
			start = othello.New(m.mode) // the leg's history holds the XOT moves
		}
		r.legs = append(r.legs, legResult{start: start, names: [2]string{names[l.black], names[1-l.black]},
			startMS: m.startMS, clockMS: m.clockMS, history: slices.Clone(l.history), final: l.clocks, status: l.status})
	}
	s.results = append(s.results, r)
	if len(s.results) > KeptResults {
		s.results = slices.Delete(s.results, 0, len(s.results)-KeptResults)
	}
}

// ReplayPath returns the path of an ended match's replay page (a human
// room's latest round), while it is among the last KeptResults.
func ReplayPath(id int64) string { return "/arena/matches/" + strconv.FormatInt(id, 10) }

// replayURL returns the page of result r.
func (r *result) replayURL() string {
	u := ReplayPath(r.id)
	if r.round > 0 {
		u += "?round=" + strconv.FormatInt(r.round, 10)
	}
	return u
}

// view returns the result's line of the page.
func (r *result) view() MatchView {
	v := MatchView{ID: r.id, Mode: r.mode.String(), A: r.a, B: r.b, Status: r.status, Reason: r.reason,
		Totals: r.totals, Winner: r.winner, Round: r.round}
	if len(r.legs) > 0 {
		v.Replay = r.replayURL()
	}
	return v
}

// frame is the position after a number of plies of a leg.
type frame struct {
	pos    othello.Position
	last   int      // the last move's square; othello.Pass, or -2 at the start
	clocks [2]int64 // black's and white's after the move
}

// frames replays a leg from its start: one frame per position. A move the
// rules refuse ends the replay there (never on the arena's own records).
func (l legResult) frames() []frame {
	out := make([]frame, 0, len(l.history)+1)
	f := frame{pos: l.start, last: -2, clocks: [2]int64{l.clockMS, l.clockMS}}
	out = append(out, f)
	prev := l.startMS
	for _, h := range l.history {
		c := f.pos.Turn
		next, err := f.pos.Play(h.Move.Square)
		if err != nil {
			break
		}
		if h.AtMS > 0 {
			f.clocks[c-1] = max(0, f.clocks[c-1]-(h.AtMS-prev))
			prev = h.AtMS
		}
		f.pos, f.last = next, h.Move.Square
		out = append(out, f)
	}
	// The end: the clocks as the leg left them (a timeout's zero).
	out[len(out)-1].clocks = l.final
	return out
}

// ReplayPage is the replay of one ended match (/arena/matches/ID): one leg
// at one position, the move list numbered by plies, both clocks.
type ReplayPage struct {
	Match  MatchView
	Legs   []ReplayLeg // the legs' tabs
	Leg    int         // the leg shown
	Ply    int         // the position shown: after Ply moves
	Last   int         // the last ply
	Board  template.HTML
	Black  string
	White  string
	ClockB string
	ClockW string
	Discs  [2]int
	Move   string // the move that led here, "19. b1"; empty at the start
	Status string // the leg's end
	Rows   []ReplayRow
	Back   string // the match's page without ply: ?leg=N
	Prev   int
	Next   int
}

// ReplayLeg is a leg's tab.
type ReplayLeg struct {
	N            int
	Black, White string
	Discs        [2]int
	Status       string
	URL          string
}

// ReplayRow is one line of the move list: black's move and white's.
type ReplayRow struct {
	Cells [2]*ReplayMove
}

// ReplayMove is one move of the list, numbered by its ply.
type ReplayMove struct {
	Ply    int
	Square string
	URL    string
	Cur    bool
}

// findResult returns the kept result of match id (its round; the latest
// when round is 0), nil when it is not kept.
func (s *Server) findResult(id, round int64) *result {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.results) - 1; i >= 0; i-- {
		if r := s.results[i]; r.id == id && (round == 0 || r.round == round) {
			return r
		}
	}
	return nil
}

// serveReplay is GET /arena/matches/{id}[?round=R][&leg=L][&ply=N].
func (s *Server) serveReplay(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	q := r.URL.Query()
	var round int64
	if v := q.Get("round"); v != "" && err == nil {
		round, err = strconv.ParseInt(v, 10, 64)
	}
	var res *result
	if err == nil {
		res = s.findResult(id, round)
	}
	if res == nil || len(res.legs) == 0 {
		http.Error(w, fmt.Sprintf("match %s: not among the %d last results the arena keeps", r.PathValue("id"), KeptResults), http.StatusNotFound)
		return
	}
	leg, _ := strconv.Atoi(q.Get("leg"))
	leg = min(max(leg, 0), len(res.legs)-1)
	page := res.replay(leg, q.Get("ply"))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := s.page.ExecuteTemplate(w, "replay", page); err != nil {
		s.log.Warn("replay page", "err", err)
	}
}

// replay returns the page of leg li at ply (the end when ply is not a
// number).
func (r *result) replay(li int, plyText string) ReplayPage {
	base := r.replayURL()
	sep := "?"
	if r.round > 0 {
		sep = "&"
	}
	legURL := func(n int) string { return base + sep + "leg=" + strconv.Itoa(n) }
	p := ReplayPage{Match: r.view(), Leg: li}
	for n, l := range r.legs {
		fs := l.frames()
		b, w := fs[len(fs)-1].pos.Count()
		p.Legs = append(p.Legs, ReplayLeg{N: n, Black: l.names[0], White: l.names[1], Discs: [2]int{b, w}, Status: l.status, URL: legURL(n)})
	}
	l := r.legs[li]
	fs := l.frames()
	p.Last = len(fs) - 1
	p.Ply = p.Last
	if n, err := strconv.Atoi(plyText); err == nil {
		p.Ply = min(max(n, 0), p.Last)
	}
	p.Prev, p.Next = max(p.Ply-1, 0), min(p.Ply+1, p.Last)
	p.Back = legURL(li)
	f := fs[p.Ply]
	size := r.mode.Size()
	last := -1
	if f.last >= 0 {
		last = f.last
	}
	p.Board = boardview.Board{Size: size, Cells: cells(r.mode, f.pos), Last: last, Best: -1, ID: "board",
		Label: fmt.Sprintf("leg %d after move %d", li, p.Ply), Data: []boardview.Attr{{Name: "ply", Value: strconv.Itoa(p.Ply)}}}.SVG()
	p.Black, p.White = l.names[0], l.names[1]
	p.ClockB, p.ClockW = fmtClock(f.clocks[0]), fmtClock(f.clocks[1])
	p.Discs[0], p.Discs[1] = f.pos.Count()
	p.Status = l.status
	if p.Ply > 0 {
		p.Move = moveLabel(p.Ply, fs[p.Ply].last, size)
	}
	for i := 1; i < len(fs); i++ {
		col := 0
		if fs[i-1].pos.Turn == othello.White {
			col = 1
		}
		if len(p.Rows) == 0 || col == 0 || p.Rows[len(p.Rows)-1].Cells[1] != nil {
			p.Rows = append(p.Rows, ReplayRow{})
		}
		p.Rows[len(p.Rows)-1].Cells[col] = &ReplayMove{Ply: i, Square: squareText(fs[i].last, size),
			URL: legURL(li) + "&ply=" + strconv.Itoa(i), Cur: i == p.Ply}
	}
	return p
}

// moveLabel names a move by its ply, as every view of flipbot does
// (bot/record's "Notation"): "19. b1".
func moveLabel(ply, sq, size int) string {
	return strconv.Itoa(ply) + ". " + squareText(sq, size)
}

func squareText(sq, size int) string {
	if sq == othello.Pass {
		return "pass"
	}
	return othello.SquareName(sq, size)
}

// cells returns a position as boardview's cells: 'x' blocked, '1' black,
// '2' white, '0' empty.
func cells(mode othello.Mode, pos othello.Position) string {
	n := mode.Squares()
	blocked := mode.Blocked()
	b := make([]byte, n)
	for sq := range n {
		switch {
		case blocked.Has(sq):
			b[sq] = 'x'
		case pos.Black.Has(sq):
			b[sq] = '1'
		case pos.White.Has(sq):
			b[sq] = '2'
		default:
			b[sq] = '0'
		}
	}
	return string(b)
}
