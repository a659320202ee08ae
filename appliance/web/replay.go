package web

import (
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"strconv"
	"strings"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/internal/boardview"
)

// The replay page (GET /games/{id}[?ply=N]) is drawn by the server at
// position N (the end by default): a board in SVG with coordinates, the
// move list, the position's panel (the move, both clocks, the engine's own
// score, the analysis) and the score graph in SVG. Every move in the list
// and every column of the graph is a link to ?ply=N, so the page works
// without scripts; replay.js, when it runs, steps through the positions in
// place from the page's JSON data (keys ← → Home End, clicks) and keeps
// the URL's ply up to date.

// Board geometry, in the SVG's units (internal/boardview draws the board).
const (
	cell   = boardview.Cell
	margin = boardview.Margin
)

// Score graph geometry, in the SVG's units.
const (
	graphW    = 480
	graphH    = 190
	graphLeft = 38
	graphTop  = 10
	graphBot  = 22
)

// replayPage is what the replay template gets.
type replayPage struct {
	pageData
	Game     record.Game
	Ply      int           // the position shown: after Ply moves
	Last     int           // the last ply
	Board    template.HTML // the board at Ply, drawn by internal/boardview
	Rows     []moveRow
	Plies    []plyView
	Graph    svgGraph
	Analysis *record.Analysis
	Summary  []sideSummary
	Turning  []turnLink
	// AnalysisProblem says why an analysis kept for the game is not shown.
	AnalysisProblem string
	Data            replayData
	Error           string
	GGF             bool
	Thresholds      [3]float64
}

// moveRow is one line of the move list: black's move and white's, each
// numbered by its ply as every view numbers moves (record's "Notation");
// rows are not numbered, since after a pass a pair number would not name
// one move.
type moveRow struct {
	Cells [2]*moveCell
}

type moveCell struct {
	Ply    int
	Square string
	Class  string // the loss class, "" when not analysed
	Mark   string // ?!, ?, ?? for inaccuracies, mistakes, blunders
	Title  string
}

// plyView is the panel of one position.
type plyView struct {
	Ply      int
	Move     *record.Move
	Analysed *record.AnalysedMove
	Class    string
	Clock    [2]int64
	Discs    [2]int
}

// sideSummary is one colour's line of the analysis summary.
type sideSummary struct {
	Color    int
	Name     string
	Me       bool
	MeanLoss float64
	Counted  int
	Worst    record.Worst
	Class    string
}

type turnLink struct {
	Ply    int
	Square string
	Color  int
}

// svgGraph is the score graph: the value for black move by move.
type svgGraph struct {
	W, H, Left, Right, Top, Bottom int
	Zero                           int
	Points                         string
	Grid                           []gridLine
	Marks                          []graphMark
	Turns                          []graphMark
	Hits                           []graphHit
	Cursor                         int
	FromAnalysis                   bool
	Empty                          bool
	Range                          int
	N                              int // positions
	PlotW, PlotH                   int
}

type gridLine struct {
	Y     int
	Label string
}

type graphMark struct {
	X, Y  int
	Ply   int
	Class string
	Title string
}

type graphHit struct {
	X, W  int
	Ply   int
	Title string
}

// replayData is what replay.js reads from the page.
type replayData struct {
	Size   int        `json:"size"`
	Cell   int        `json:"cell"`
	Margin int        `json:"margin"`
	Plies  []plyFrame `json:"plies"`
}

// plyFrame is one position for replay.js.
type plyFrame struct {
	Board string `json:"b"` // a1 first: 0 empty, 1 black, 2 white
	Last  int    `json:"l"` // the last move's square, −1 none
	Best  int    `json:"k"` // the square the analysis says the last move should have taken, −1 none
	Class string `json:"c"` // the last move's loss class
	X     int    `json:"x"` // the graph's x at this position
}

func (h *Handler) serveReplay(w http.ResponseWriter, r *http.Request) {
	g, ok := h.gameOr404(w, r)
	if !ok {
		return
	}
	p := replayPage{pageData: pageData{Title: "Game " + g.ID, St: h.hub.Snapshot()}, Game: g,
		GGF: record.FormatGGF.Expresses(g.Mode), Thresholds: [3]float64{record.InaccuracyLoss, record.MistakeLoss, record.BlunderLoss}}
	switch a, err := h.cfg.Games.Analysis(g.ID); {
	case err == nil:
		p.Analysis = &a
	case errors.Is(err, record.ErrNoAnalysis):
	default:
		h.refused.note("game analysis unreadable", "game", g.ID, "err", err)
		p.AnalysisProblem = "This game's analysis is damaged and is not shown (details in the device's log); it will be analysed again."
	}
	frames, err := replayFrames(g)
	if err != nil {
		p.Error = err.Error()
	}
	if p.Analysis != nil && len(frames) != len(p.Analysis.Moves)+1 {
		p.Analysis = nil // the game does not replay to its end: no analysis fits it
	}
	p.Last = len(frames) - 1
	p.Ply = p.Last
	if s := r.URL.Query().Get("ply"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			p.Ply = min(max(n, 0), p.Last)
		}
	}
	mode, _ := othello.ParseMode(g.Mode)
	p.Plies = plyViews(frames, p.Analysis)
	p.Rows = moveRows(g, p.Analysis, p.Plies, mode.Size())
	p.Graph = scoreGraph(g, p.Analysis, len(frames), mode.Squares())
	p.Graph.Cursor = p.Graph.x(p.Ply)
	p.Data = replayData{Size: mode.Size(), Cell: cell, Margin: margin}
	for i, f := range frames {
		pf := plyFrame{Board: boardString(f.Leg.Board), Last: -1, Best: -1, X: p.Graph.x(i)}
		if f.Move != nil {
			pf.Last = f.Move.Move
			if a := p.Plies[i].Analysed; a != nil {
				pf.Class = p.Plies[i].Class
				if a.Move != a.Best && pf.Class != record.ClassBest {
					pf.Best = a.Best
				}
			}
		}
		p.Data.Plies = append(p.Data.Plies, pf)
	}
	if len(frames) > 0 {
		p.Board = boardAt(mode, p.Ply, p.Last, p.Data.Plies[p.Ply])
	}
	if a := p.Analysis; a != nil {
		p.Summary, p.Turning = analysisSummary(g, a, mode.Size())
	}
	h.render(w, http.StatusOK, "replay", p)
}

// boardString is a board as one character per square.
func boardString(board []int) string {
	var b strings.Builder
	b.Grow(len(board))
	for _, c := range board {
		b.WriteByte(byte('0' + min(max(c, 0), 2)))
	}
	return b.String()
}

// squareCentre returns the centre of square sq on a board of size.
func squareCentre(sq, size int) (int, int) { return boardview.Centre(sq, size) }

// boardAt draws the board of one position, as the page's #board (its
// data-ply and data-last are replay.js's).
func boardAt(mode othello.Mode, ply, last int, pf plyFrame) template.HTML {
	cells := []byte(pf.Board)
	for _, sq := range mode.BlockedSquares() {
		if sq >= 0 && sq < len(cells) {
			cells[sq] = 'x'
		}
	}
	return boardview.Board{Size: mode.Size(), Cells: string(cells), Last: pf.Last, LastClass: pf.Class, Best: pf.Best,
		ID: "board", Label: "the board after move " + strconv.Itoa(ply),
		Data: []boardview.Attr{{Name: "ply", Value: strconv.Itoa(ply)}, {Name: "last", Value: strconv.Itoa(last)}}}.SVG()
}

// plyViews returns the panel of every position.
func plyViews(frames []frame, a *record.Analysis) []plyView {
	out := make([]plyView, len(frames))
	for i, f := range frames {
		v := plyView{Ply: i, Move: f.Move, Clock: f.Clock, Discs: f.Discs}
		if a != nil && i > 0 && i-1 < len(a.Moves) {
			am := a.Moves[i-1]
			v.Analysed = &am
			if am.Move != othello.Pass {
				v.Class = record.LossClass(am.Loss)
			}
		}
		out[i] = v
	}
	return out
}

// lossMark is the annotation of a loss class, as in chess books.
func lossMark(class string) string {
	switch class {
	case record.ClassInaccuracy:
		return "?!"
	case record.ClassMistake:
		return "?"
	case record.ClassBlunder:
		return "??"
	}
	return ""
}

// moveRows lays the moves out in rows of black's move then white's, each
// labelled with its ply; a game whose first move is white's starts with an
// empty black cell, and a pass is a move of its own ("pass").
func moveRows(g record.Game, a *record.Analysis, plies []plyView, size int) []moveRow {
	var rows []moveRow
	for i, m := range g.Moves {
		if i+1 >= len(plies) {
			break // the record does not replay past here
		}
		col := 0
		if m.Color == 2 {
			col = 1
		}
		if len(rows) == 0 || col == 0 || rows[len(rows)-1].Cells[1] != nil {
			rows = append(rows, moveRow{})
		}
		pv := plies[i+1]
		c := &moveCell{Ply: i + 1, Square: squareText(m.Move, size), Class: pv.Class, Mark: lossMark(pv.Class)}
		title := []string{record.MoveLabel(i+1, colorName(m.Color)+" "+c.Square), fmt.Sprintf("%.1f s", float64(m.TimeMS)/1000),
			"● " + formatClock(pv.Clock[0]) + " ○ " + formatClock(pv.Clock[1])}
		if am := pv.Analysed; am != nil && m.Move != othello.Pass {
			t := fmt.Sprintf("%s, lost %.1f", pv.Class, am.Loss)
			if am.Best != am.Move && pv.Class != record.ClassBest {
				t += ", best " + am.BestSquare
			}
			title = append(title, t)
		}
		c.Title = strings.Join(title, " · ")
		rows[len(rows)-1].Cells[col] = c
	}
	return rows
}

func squareText(mv, size int) string {
	if mv == othello.Pass {
		return "pass"
	}
	return othello.SquareName(mv, size)
}

// analysisSummary returns the analysis' lines per colour and its turning
// points.
func analysisSummary(g record.Game, a *record.Analysis, size int) ([]sideSummary, []turnLink) {
	sum := a.Summary()
	var out []sideSummary
	for c, p := range []record.Player{g.Black, g.White} {
		mean, n, worst := sum.Side(c + 1)
		out = append(out, sideSummary{Color: c + 1, Name: p.Name, Me: g.MyColor == c+1, MeanLoss: mean, Counted: n,
			Worst: worst, Class: record.LossClass(worst.Loss)})
	}
	var turns []turnLink
	for _, tp := range a.TurningPoints {
		m := a.Moves[tp-1]
		turns = append(turns, turnLink{Ply: tp, Square: squareText(m.Move, size), Color: m.Color})
	}
	return out, turns
}

// x returns the graph's x of position ply.
func (g svgGraph) x(ply int) int {
	if g.Right <= g.Left {
		return g.Left
	}
	n := max(g.N-1, 1)
	return g.Left + ply*(g.Right-g.Left)/n
}

// y returns the graph's y of a value for black.
func (g svgGraph) y(v float64) int {
	r := float64(g.Range)
	v = max(-r, min(r, v))
	return g.Zero - int(math.Round(v*float64(g.Zero-g.Top)/r))
}

// scoreGraph draws the value for black at every position: the analysis'
// values, or without one the engine's own scores for the moves that have
// them; the analysis' mistakes and blunders and its turning points marked.
func scoreGraph(g record.Game, a *record.Analysis, positions, squares int) svgGraph {
	gr := svgGraph{W: graphW, H: graphH, Left: graphLeft, Right: graphW - 8, Top: graphTop, Bottom: graphH - graphBot, N: positions}
	gr.Zero = (gr.Top + gr.Bottom) / 2
	gr.PlotW, gr.PlotH = gr.Right-gr.Left, gr.Bottom-gr.Top
	vals := make([]float64, positions)
	have := make([]bool, positions)
	if a != nil {
		gr.FromAnalysis = true
		for i, v := range a.Curve() {
			if i < positions {
				vals[i], have[i] = v, true
			}
		}
	} else {
		for i, m := range g.Moves {
			if m.Score != nil && i < positions {
				v := *m.Score
				if m.Color == 2 {
					v = -v
				}
				vals[i], have[i] = v, true
			}
		}
	}
	peak := 0.0
	for i, v := range vals {
		if have[i] {
			peak = max(peak, math.Abs(v))
		}
	}
	gr.Range = 8
	for float64(gr.Range) < peak && gr.Range < squares {
		gr.Range *= 2
	}
	gr.Range = min(gr.Range, squares)
	for _, f := range []float64{1, 0.5, 0, -0.5, -1} {
		v := f * float64(gr.Range)
		gr.Grid = append(gr.Grid, gridLine{Y: gr.y(v), Label: fmt.Sprintf("%+.0f", v)})
	}
	gr.Grid[2].Label = "0"
	gr.Hits = make([]graphHit, positions)
	var pts []string
	for i := range positions {
		x := gr.x(i)
		step := max(1, (gr.Right-gr.Left)/max(positions-1, 1))
		gr.Hits[i] = graphHit{X: x - step/2, W: step, Ply: i, Title: fmt.Sprintf("position %d", i)}
		if have[i] {
			pts = append(pts, fmt.Sprintf("%d,%d", x, gr.y(vals[i])))
			gr.Hits[i].Title = fmt.Sprintf("position %d: %+.1f for black", i, vals[i])
		}
	}
	gr.Points = strings.Join(pts, " ")
	gr.Empty = len(pts) == 0
	if a != nil {
		for i, m := range a.Moves {
			ply := i + 1
			if ply >= positions || m.Move == othello.Pass {
				continue
			}
			class := record.LossClass(m.Loss)
			if class == record.ClassMistake || class == record.ClassBlunder {
				gr.Marks = append(gr.Marks, graphMark{X: gr.x(ply), Y: gr.y(vals[ply]), Ply: ply, Class: class,
					Title: fmt.Sprintf("%d. %s %s: %s, lost %.1f", ply, colorName(m.Color), m.Square, class, m.Loss)})
			}
		}
		for _, tp := range a.TurningPoints {
			if tp < positions {
				m := a.Moves[tp-1]
				gr.Turns = append(gr.Turns, graphMark{X: gr.x(tp), Ply: tp,
					Title: fmt.Sprintf("turning point: %d. %s %s", tp, colorName(m.Color), m.Square)})
			}
		}
	}
	return gr
}
