package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/internal/text"
)

// AnalysisSchema is the version of the analyses this package reads and
// writes.
const AnalysisSchema = 1

// MaxAnalysisBytes bounds the file of one analysis: the largest game's
// analysis takes about a sixth of it.
const MaxAnalysisBytes = 256 << 10

// Losses (discs) from which a move is an inaccuracy, a mistake, a blunder.
const (
	InaccuracyLoss = 1.0
	MistakeLoss    = 4.0
	BlunderLoss    = 10.0
)

// The classes of LossClass.
const (
	ClassBest       = "best"
	ClassInaccuracy = "inaccuracy"
	ClassMistake    = "mistake"
	ClassBlunder    = "blunder"
)

// LossClass returns the class of a move that lost loss discs: best,
// inaccuracy, mistake or blunder.
func LossClass(loss float64) string {
	switch {
	case loss >= BlunderLoss:
		return ClassBlunder
	case loss >= MistakeLoss:
		return ClassMistake
	case loss >= InaccuracyLoss:
		return ClassInaccuracy
	}
	return ClassBest
}

// Analysis is the analysis of one game; its JSON form is described above.
type Analysis struct {
	Schema        int            `json:"schema"`
	Game          string         `json:"game"`
	Engine        string         `json:"engine"`
	Analysed      time.Time      `json:"analysed"`
	ElapsedMS     int64          `json:"elapsed_ms"`
	Moves         []AnalysedMove `json:"moves"`
	Final         Eval           `json:"final"`
	TurningPoints []int          `json:"turning_points"`
}

// AnalysedMove is one move of an analysis.
type AnalysedMove struct {
	Color      int     `json:"color"`
	Move       int     `json:"move"`
	Square     string  `json:"square"`
	Best       int     `json:"best"`
	BestSquare string  `json:"best_square"`
	Score      float64 `json:"score"`
	Played     float64 `json:"played"`
	Loss       float64 `json:"loss"`
	Depth      int     `json:"depth"`
	Exact      bool    `json:"exact"`
	Forced     bool    `json:"forced,omitempty"`
}

// Eval is the value of a position: the score for black (the mode's
// scoring), the depth of its search and whether it is exact.
type Eval struct {
	Score float64 `json:"score"`
	Depth int     `json:"depth"`
	Exact bool    `json:"exact"`
}

// ForBlack returns the value of the position before the move for black:
// the best move's score, from black's side.
func (m AnalysedMove) ForBlack() float64 {
	if m.Color == 2 {
		return -m.Score
	}
	return m.Score
}

// Curve returns the value for black before each move and after the last
// (len(Moves)+1 points): the line of a score graph.
func (a *Analysis) Curve() []float64 {
	out := make([]float64, 0, len(a.Moves)+1)
	for _, m := range a.Moves {
		out = append(out, m.ForBlack())
	}
	return append(out, a.Final.Score)
}

// ErrBadAnalysis is returned (wrapped) by ParseAnalysis and the checks
// for an analysis out of its ranges or not of its game.
var ErrBadAnalysis = errors.New("bad game analysis")

// ErrNoAnalysis is returned (wrapped) by Store.Analysis for a game not
// analysed yet.
var ErrNoAnalysis = errors.New("game not analysed")

// ParseAnalysis reads an analysis written by MarshalAnalysis and checks its
// fields' ranges for a game of mode with moves moves (CheckShape). data
// longer than MaxAnalysisBytes is refused unread.
func ParseAnalysis(data []byte, mode othello.Mode, moves int) (Analysis, error) {
	if len(data) > MaxAnalysisBytes {
		return Analysis{}, fmt.Errorf("%w: %d bytes, at most %d", ErrBadAnalysis, len(data), MaxAnalysisBytes)
	}
	var a Analysis
	if err := json.Unmarshal(data, &a); err != nil {
		return Analysis{}, fmt.Errorf("%w: %w", ErrBadAnalysis, err)
	}
	if err := a.CheckShape(mode, moves); err != nil {
		return Analysis{}, err
	}
	return a, nil
}

// MarshalAnalysis returns a's JSON form.
func MarshalAnalysis(a *Analysis) ([]byte, error) {
	b, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("encode analysis of %s: %w", a.Game, err)
	}
	return append(b, '\n'), nil
}

// CheckShape reports the first field of a out of its range for a game of
// mode with moves moves: the schema, the id, the counts, squares, scores
// (within the board's squares), losses (0 up to twice the squares), depths,
// the turning points. Every list is bounded before it is walked. It does
// not compare the moves with a game's: Check does.
func (a *Analysis) CheckShape(mode othello.Mode, moves int) error {
	if err := a.checkShape(mode, moves); err != nil {
		return fmt.Errorf("%w: %w", ErrBadAnalysis, err)
	}
	return nil
}

func (a *Analysis) checkShape(mode othello.Mode, moves int) error {
	if a.Schema != AnalysisSchema {
		return fmt.Errorf("analysis schema %d, want %d", a.Schema, AnalysisSchema)
	}
	if !ValidID(a.Game) {
		return fmt.Errorf("analysis of game %q: not a game id", text.Elide(a.Game, MaxText))
	}
	if len(a.Moves) != moves {
		return fmt.Errorf("analysis of %s: %d moves, the game has %d", a.Game, len(a.Moves), moves)
	}
	if len(a.TurningPoints) > moves {
		return fmt.Errorf("analysis of %s: %d turning points for %d moves", a.Game, len(a.TurningPoints), moves)
	}
	n := float64(mode.Squares())
	err := firstErr(
		checkText("engine", a.Engine, 4*MaxText),
		checkRange("elapsed_ms", a.ElapsedMS, 0, MaxClockMS),
		checkEval("final", a.Final, n),
	)
	if err != nil {
		return fmt.Errorf("analysis of %s: %w", a.Game, err)
	}
	for i, m := range a.Moves {
		if err := checkAnalysedMove(m, mode); err != nil {
			return fmt.Errorf("analysis of %s move %d: %w", a.Game, i+1, err)
		}
	}
	prev := 0
	for _, tp := range a.TurningPoints {
		if tp <= prev || tp > moves {
			return fmt.Errorf("analysis of %s: turning point %d out of order or outside 1..%d", a.Game, tp, moves)
		}
		prev = tp
	}
	return nil
}

func checkEval(field string, e Eval, n float64) error {
	return firstErr(
		checkScore(field+" score", e.Score, n),
		checkRange(field+" depth", int64(e.Depth), 0, MaxDepth),
	)
}

func checkScore(field string, v, limit float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < -limit || v > limit {
		return fmt.Errorf("%s %v outside ±%v", field, v, limit)
	}
	return nil
}

func checkAnalysedMove(m AnalysedMove, mode othello.Mode) error {
	n := float64(mode.Squares())
	if m.Move < othello.Pass || m.Move >= mode.Squares() || m.Square != squareName(m.Move, mode.Size()) {
		return fmt.Errorf("move %d %q is not a square of %s", m.Move, text.Elide(m.Square, MaxText), mode)
	}
	if m.Best < othello.Pass || m.Best >= mode.Squares() || m.BestSquare != squareName(m.Best, mode.Size()) {
		return fmt.Errorf("best move %d %q is not a square of %s", m.Best, text.Elide(m.BestSquare, MaxText), mode)
	}
	if err := firstErr(
		checkRange("colour", int64(m.Color), 1, 2),
		checkScore("score", m.Score, n),
		checkScore("played", m.Played, n),
		checkScore("loss", m.Loss, 2*n),
		checkRange("depth", int64(m.Depth), 0, MaxDepth),
	); err != nil {
		return err
	}
	if m.Loss < 0 {
		return fmt.Errorf("loss %v below 0", m.Loss)
	}
	return nil
}

// Check reports the first problem of a as the analysis of g: its shape
// (CheckShape) and every move's colour and square against the game's.
func (a *Analysis) Check(g *Game) error {
	mode, err := othello.ParseMode(g.Mode)
	if err != nil {
		return fmt.Errorf("%w: game %s: %w", ErrBadAnalysis, g.ID, err)
	}
	if err := a.CheckShape(mode, len(g.Moves)); err != nil {
		return err
	}
	if a.Game != g.ID {
		return fmt.Errorf("%w: analysis of %s given for game %s", ErrBadAnalysis, a.Game, g.ID)
	}
	for i, m := range a.Moves {
		if gm := g.Moves[i]; m.Color != gm.Color || m.Move != gm.Move {
			return fmt.Errorf("%w: analysis of %s move %d: %s %s, the game has %s %s", ErrBadAnalysis, a.Game, i+1,
				othello.Color(m.Color), m.Square, othello.Color(gm.Color), gm.Square)
		}
	}
	return nil
}

// AnalysisSummary is what a list shows of a game's analysis, per colour
// ([black, white]): the mean loss per move over the moves that were not
// forced, how many those were, and the worst of them.
type AnalysisSummary struct {
	MeanLoss [2]float64 `json:"mean_loss"`
	Counted  [2]int     `json:"counted_moves"`
	Worst    [2]Worst   `json:"worst"`
}

// Worst is a side's worst move: its number in the game (1 = the first; 0
// when the side had no move to count), square and loss.
type Worst struct {
	Ply    int     `json:"ply"`
	Square string  `json:"square"`
	Loss   float64 `json:"loss"`
}

// Summary returns the analysis' summary.
func (a *Analysis) Summary() AnalysisSummary {
	var s AnalysisSummary
	var sum [2]float64
	for i, m := range a.Moves {
		if m.Forced || m.Color < 1 || m.Color > 2 {
			continue
		}
		c := m.Color - 1
		s.Counted[c]++
		sum[c] += m.Loss
		if s.Worst[c].Ply == 0 || m.Loss > s.Worst[c].Loss {
			s.Worst[c] = Worst{Ply: i + 1, Square: m.Square, Loss: m.Loss}
		}
	}
	for c := range 2 {
		if s.Counted[c] > 0 {
			s.MeanLoss[c] = sum[c] / float64(s.Counted[c])
		}
	}
	return s
}

// Side returns the summary's figures for colour (1 black, 2 white; black's
// for any other).
func (s AnalysisSummary) Side(color int) (meanLoss float64, counted int, worst Worst) {
	c := 0
	if color == 2 {
		c = 1
	}
	return s.MeanLoss[c], s.Counted[c], s.Worst[c]
}
