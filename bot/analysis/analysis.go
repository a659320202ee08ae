// Package analysis scores every move of a finished game with the built-in
// engine: the value of each position before a move (an exact solve from
// the empties the engine solves in seconds, a midgame search to a fixed
// depth before them), the value of the move played, the difference in
// discs (the move's loss), the engine's best move, and the moves that
// turned the game. The result is a record.Analysis, the documented JSON
// that record.Store keeps beside the game.
//
// How a game is analysed ([Game]):
//   - The positions are scored from the last to the first, so that the
//     exact solves of the end fill the engine's table before the harder
//     ones, and a solve that does not finish in its time (Options.ExactTime)
//     makes every earlier position, with more empties, use the midgame
//     search instead.
//   - A position is scored for its side to move by the engine's best move:
//     exact when it has at most Options.ExactEmpties empties, else by a
//     search to Options.Depth plies (Options.PositionTime at most). A
//     finished game's position is scored by its discs, a pass by the
//     position after it.
//   - The played move's value is the next position's value from the
//     mover's side when that is exact; else a search of the next position
//     one ply shallower than the position's own, so that both moves are
//     seen to the same horizon. The loss is the best value less the
//     played one, never below 0, and 0 when the engine's best move was
//     played.
//   - A turning point is a move whose mover's expected outcome (win, draw,
//     loss: the sign of the value) became worse, by an exact loss of at
//     least an inaccuracy or a midgame loss of at least a mistake.
//   - Moves are numbered by ply, passes included (record.Analysis's
//     turning points, record.Worst, this package's errors), as every view
//     of a game numbers them (bot/record's "Notation").
//
// Analysing stops as soon as its context ends (a match starts on the
// device), returning the context's error and nothing half done.
//
// It imports bot/record (the games and the analysis format), engines (the
// engine's result) and engines/othello, engines/search (the built-in
// engine's limits); never bot, appliance or cmd. Its tests also use
// engines/eval (the trained evaluation the bot plays with).
package analysis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// Searcher is the engine an analysis asks: *search.Engine.
type Searcher interface {
	Search(ctx context.Context, pos othello.Position, lim search.Limits) (engines.Result, error)
}

// Options bound an analysis. The zero value gives the defaults of
// [Defaults] for the game's mode.
type Options struct {
	// Depth is the midgame search's depth, in plies.
	Depth int
	// ExactEmpties is the most empty squares at which a position is
	// solved exactly.
	ExactEmpties int
	// ExactTime bounds one exact solve: past it the position, and every
	// earlier one, gets the midgame search.
	ExactTime time.Duration
	// PositionTime bounds one midgame search.
	PositionTime time.Duration
	// Now is the clock of Analysis.Analysed (time.Now when nil).
	Now func() time.Time
}

// Defaults returns the default options for mode: a game takes 1–10 s of
// CPU on one core of the build VM, and an estimated 3–20 s on a Raspberry
// Pi 4 (README, "Measured"); a 14-ply search exact from 22 empties costs
// about 5× that. A solve is given at most 20 s and a search 10 s, so that
// no position, whatever the game, holds the device for long.
func Defaults(mode othello.Mode) Options {
	o := Options{Depth: 12, ExactEmpties: 20, ExactTime: 20 * time.Second, PositionTime: 10 * time.Second}
	if mode.Size() == 10 {
		o.Depth, o.ExactEmpties = 10, 14
	}
	return o
}

// withDefaults fills the zero fields of o from Defaults(mode).
func (o Options) withDefaults(mode othello.Mode) Options {
	d := Defaults(mode)
	if o.Depth <= 0 {
		o.Depth = d.Depth
	}
	if o.ExactEmpties <= 0 {
		o.ExactEmpties = d.ExactEmpties
	}
	if o.ExactTime <= 0 {
		o.ExactTime = d.ExactTime
	}
	if o.PositionTime <= 0 {
		o.PositionTime = d.PositionTime
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Describe says what analyses with o for mode: the engine and its limits
// (Analysis.Engine).
func (o Options) Describe(mode othello.Mode) string {
	o = o.withDefaults(mode)
	return fmt.Sprintf("flipbot search, depth %d, exact from %d empties", o.Depth, o.ExactEmpties)
}

// value is a position's score.
type value struct {
	black float64 // for black, in the mode's scoring
	depth int
	exact bool
	best  int // the engine's best move (othello.Pass when none)
	moves int // legal moves of the side to move
}

// forColor returns v's score for colour c.
func (v value) forColor(c othello.Color) float64 {
	if c == othello.White {
		return -v.black
	}
	return v.black
}

// analyser is one game's analysis under way.
type analyser struct {
	eng       Searcher
	opts      Options
	exactFrom int
	limit     float64 // the board's squares: no score is beyond
}

// Game analyses g with eng. It returns the context's error, and nothing
// else, when ctx ends first.
func Game(ctx context.Context, eng Searcher, g *record.Game, opts Options) (record.Analysis, error) {
	mode, err := othello.ParseMode(g.Mode)
	if err != nil {
		return record.Analysis{}, fmt.Errorf("analyse game %s: %w", g.ID, err)
	}
	opts = opts.withDefaults(mode)
	start := time.Now()
	positions, err := g.Replay()
	if err != nil {
		return record.Analysis{}, fmt.Errorf("analyse: %w", err)
	}
	a := &analyser{eng: eng, opts: opts, exactFrom: opts.ExactEmpties, limit: float64(mode.Squares())}
	n := len(g.Moves)
	vals := make([]value, n+1)
	for i := n; i >= 0; i-- {
		var next *value
		if i < n && g.Moves[i].Move == othello.Pass {
			next = &vals[i+1]
		}
		v, err := a.score(ctx, positions[i], next)
		if err != nil {
			return record.Analysis{}, fmt.Errorf("analyse game %s position %d: %w", g.ID, i, err)
		}
		vals[i] = v
	}
	out := record.Analysis{
		Schema: record.AnalysisSchema, Game: g.ID, Engine: opts.Describe(mode),
		Moves: make([]record.AnalysedMove, n),
		Final: record.Eval{Score: vals[n].black, Depth: vals[n].depth, Exact: vals[n].exact},
	}
	for i, m := range g.Moves {
		mover := positions[i].Turn
		v := vals[i]
		am := record.AnalysedMove{
			Color: m.Color, Move: m.Move, Square: m.Square,
			Best: v.best, BestSquare: squareName(v.best, mode.Size()),
			Score: v.forColor(mover), Depth: v.depth, Exact: v.exact, Forced: v.moves <= 1,
		}
		am.Played = am.Score
		if m.Move != othello.Pass && m.Move != v.best {
			played, err := a.played(ctx, positions[i+1], v, vals[i+1])
			if err != nil {
				return record.Analysis{}, fmt.Errorf("analyse game %s move %d: %w", g.ID, i+1, err)
			}
			am.Played = a.clamp(played.forColor(mover))
			am.Loss = max(0, am.Score-am.Played)
		}
		out.Moves[i] = am
		if turning(am, vals[i+1].exact) {
			out.TurningPoints = append(out.TurningPoints, i+1)
		}
	}
	out.Analysed = opts.Now().UTC()
	out.ElapsedMS = time.Since(start).Milliseconds()
	return out, nil
}

// turning reports whether m, a move to a position whose value is exact
// when exactAfter, is a turning point: the mover's expected outcome became
// worse, by an exact loss of an inaccuracy or more, or a midgame one of a
// mistake or more (smaller midgame losses near a draw are the search's
// noise as often as not).
func turning(m record.AnalysedMove, exactAfter bool) bool {
	least := record.MistakeLoss
	if m.Exact && exactAfter {
		least = record.InaccuracyLoss
	}
	return m.Loss >= least && outcome(m.Played) < outcome(m.Score)
}

// outcome is the expected outcome of a score: 1 a win, 0 a draw, −1 a loss.
func outcome(v float64) int {
	switch {
	case v >= 0.5:
		return 1
	case v <= -0.5:
		return -1
	}
	return 0
}

// score scores pos. next, when the recorded move from pos is a pass, is
// the value of the position after it.
func (a *analyser) score(ctx context.Context, pos othello.Position, next *value) (value, error) {
	if pos.GameOver() {
		return value{black: a.final(pos), exact: true, best: othello.Pass}, nil
	}
	legal := pos.Legal()
	if legal.IsZero() {
		if next != nil {
			v := *next
			v.best, v.moves = othello.Pass, 0
			return v, nil
		}
		after, err := pos.Play(othello.Pass)
		if err != nil {
			return value{}, err
		}
		v, err := a.score(ctx, after, nil)
		v.best, v.moves = othello.Pass, 0
		return v, err
	}
	v := value{moves: legal.Count()}
	if empties := pos.Empties().Count(); empties <= a.exactFrom {
		res, err := a.search(ctx, pos, search.Limits{Exact: true, Time: a.opts.ExactTime})
		if err != nil {
			return value{}, err
		}
		if res.Exact && legal.Has(res.Move) {
			v.black, v.depth, v.exact, v.best = a.forBlack(pos, res.Score), empties, true, res.Move
			return v, nil
		}
		// Too slow to solve here: so is every earlier position.
		a.exactFrom = empties - 1
	}
	res, err := a.search(ctx, pos, search.Limits{Depth: a.opts.Depth, Time: a.opts.PositionTime})
	if err != nil {
		return value{}, err
	}
	if !legal.Has(res.Move) {
		return value{}, fmt.Errorf("the engine answered %s, not a legal move", squareName(res.Move, pos.Size()))
	}
	v.black, v.depth, v.exact, v.best = a.forBlack(pos, res.Score), res.Depth, res.Exact, res.Move
	if v.exact {
		v.depth = pos.Empties().Count()
	}
	return v, nil
}

// played returns the value of the position after, reached by a move that
// was not the best of a position valued before: its own value when exact,
// else a search one ply shallower than before's.
func (a *analyser) played(ctx context.Context, after othello.Position, before, next value) (value, error) {
	if next.exact || before.depth <= 1 {
		return next, nil
	}
	pos := after
	if !pos.GameOver() && pos.Legal().IsZero() {
		p, err := pos.Play(othello.Pass)
		if err != nil {
			return value{}, err
		}
		pos = p
	}
	if pos.GameOver() {
		return value{black: a.final(pos), exact: true}, nil
	}
	res, err := a.search(ctx, pos, search.Limits{Depth: before.depth - 1, Time: a.opts.PositionTime})
	if err != nil {
		return value{}, err
	}
	return value{black: a.forBlack(pos, res.Score), depth: res.Depth, exact: res.Exact}, nil
}

// search asks the engine, returning the context's error when ctx has ended
// (the engine's answer is then cut short).
func (a *analyser) search(ctx context.Context, pos othello.Position, lim search.Limits) (engines.Result, error) {
	if err := ctx.Err(); err != nil {
		return engines.Result{}, err
	}
	res, err := a.eng.Search(ctx, pos, lim)
	if cerr := ctx.Err(); cerr != nil {
		return engines.Result{}, cerr
	}
	if err != nil {
		return engines.Result{}, fmt.Errorf("search: %w", err)
	}
	if math.IsNaN(res.Score) || math.IsInf(res.Score, 0) {
		return engines.Result{}, errors.New("search: the engine's score is not a number")
	}
	return res, nil
}

// forBlack turns a score for pos's side to move into one for black,
// within the board's squares.
func (a *analyser) forBlack(pos othello.Position, score float64) float64 {
	score = a.clamp(score)
	if pos.Turn == othello.White {
		return -score
	}
	return score
}

func (a *analyser) clamp(v float64) float64 { return max(-a.limit, min(a.limit, v)) }

// final is a finished game's score for black in the mode's scoring.
func (a *analyser) final(pos othello.Position) float64 {
	b, w := pos.Count()
	d := float64(b - w)
	if pos.Mode.LessWins() {
		d = -d
	}
	return d
}

func squareName(mv, size int) string {
	if mv == othello.Pass {
		return "pass"
	}
	return othello.SquareName(mv, size)
}
