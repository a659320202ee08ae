package analysis

import (
	"bufio"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// ffoFile is the FFO positions #1–19 (14–19 empties), copied from
// ../shared/data/ffo as its README allows.
const ffoFile = "../../engines/search/testdata/fforum-1-19.obf"

func ffo(t *testing.T) []search.OBFPosition {
	t.Helper()
	f, err := os.Open(ffoFile)
	require.NoError(t, err)
	defer f.Close()
	var out []search.OBFPosition
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p, err := search.ParseOBF(sc.Text())
		require.NoError(t, err)
		out = append(out, p)
	}
	require.NoError(t, sc.Err())
	return out
}

// gameFrom makes a finished std game record from start: the moves given,
// then the first legal move (or a pass) to the end.
func gameFrom(t testing.TB, start othello.Position, moves ...int) record.Game {
	t.Helper()
	g := record.Game{
		Schema: record.Schema, ID: "7-0-1796400000000", Source: record.SourceArena, MatchID: 7,
		Mode: start.Mode.String(), BoardSize: start.Size(), Blocked: start.Mode.BlockedSquares(),
		Black: record.Player{Name: "mybot", Me: true}, White: record.Player{Name: "house"}, MyColor: 1,
		Start:   record.Start{Board: start.Board(), Turn: int(start.Turn), Placed: [2]int{start.Placed.Black, start.Placed.White}},
		ClockMS: 60000, LegStatus: "finished",
		Started: time.Unix(1796400000, 0).UTC(), Ended: time.Unix(1796400100, 0).UTC(),
	}
	if g.Blocked == nil {
		g.Blocked = []int{}
	}
	pos := start
	for !pos.GameOver() {
		mv := othello.Pass
		if len(moves) > 0 {
			mv, moves = moves[0], moves[1:]
		} else if l := pos.LegalMoves(); len(l) > 0 {
			mv = l[0]
		}
		name := "pass"
		if mv != othello.Pass {
			name = othello.SquareName(mv, pos.Size())
		}
		g.Moves = append(g.Moves, record.Move{Color: int(pos.Turn), Move: mv, Square: name, TimeMS: 100, ClockMS: 50000})
		var err error
		pos, err = pos.Play(mv)
		require.NoError(t, err)
	}
	b, w := pos.Count()
	g.Discs, g.ResultDiscs = [2]int{b, w}, [2]int{b, w}
	g.Winner = record.LegWinner(g.Mode, g.ResultDiscs)
	g.Result = record.LegResult(g.Winner, g.MyColor)
	require.NoError(t, g.Check())
	return g
}

func engine() *search.Engine { return search.New(search.Options{Threads: 2, HashMB: 16}) }

// TestKnownLosingMovesGetTheirExactLoss: from FFO positions, a game that
// starts with a losing move of the published list has that move marked
// with its exact loss (the best score less the move's), the best move's
// score as the position's, exact, and the best move named; every later
// position is exact too.
func TestKnownLosingMovesGetTheirExactLoss(t *testing.T) {
	positions := ffo(t)
	cases := []struct {
		n    int // FFO number
		move string
	}{
		{1, "G2"}, // +18 best (G8), G2 −24: loss 42
		{1, "A3"}, // +4: loss 14
		{2, "B2"}, // +10 best (A4), B2 +0: loss 10
		{3, "B8"}, // +2 best (D1), B8 −2: loss 4
		{3, "D1"}, // the best move: loss 0
	}
	eng := engine()
	for _, c := range cases {
		p := positions[c.n-1]
		mv, err := othello.ParseSquare(c.move, 8)
		require.NoError(t, err)
		moveScore, ok := p.Scores[mv]
		require.True(t, ok, "FFO #%d lists %s", c.n, c.move)
		best, _ := p.Best()
		g := gameFrom(t, p.Position, mv)

		a, err := Game(context.Background(), eng, &g, Options{})
		require.NoError(t, err)
		require.NoError(t, a.Check(&g))
		first := a.Moves[0]
		assert.True(t, first.Exact, "FFO #%d: %d empties are solved exactly", c.n, p.Position.Empties().Count())
		assert.InDelta(t, float64(best), first.Score, 0, "FFO #%d: the position's exact score", c.n)
		assert.InDelta(t, float64(moveScore), first.Played, 0, "FFO #%d %s: the move's exact score", c.n, c.move)
		assert.InDelta(t, float64(best-moveScore), first.Loss, 0, "FFO #%d %s: its exact loss", c.n, c.move)
		assert.Equal(t, best, p.Scores[first.Best], "FFO #%d: the best move named (%s) has the best score", c.n, first.BestSquare)
		assert.Equal(t, othello.SquareName(first.Best, 8), first.BestSquare)
		for i, m := range a.Moves {
			assert.True(t, m.Exact, "move %d exact", i+1)
			assert.GreaterOrEqual(t, m.Loss, 0.0)
		}
		assert.True(t, a.Final.Exact)
		assert.InDelta(t, float64(g.ResultDiscs[0]-g.ResultDiscs[1]), a.Final.Score, 0, "the final score is the result")
		if best > 0 && moveScore < 0 {
			assert.Equal(t, 1, a.TurningPoints[0], "FFO #%d %s turns a win into a loss", c.n, c.move)
		}
		want := record.ClassBest
		switch loss := float64(best - moveScore); {
		case loss >= record.BlunderLoss:
			want = record.ClassBlunder
		case loss >= record.MistakeLoss:
			want = record.ClassMistake
		case loss >= record.InaccuracyLoss:
			want = record.ClassInaccuracy
		}
		assert.Equal(t, want, record.LossClass(first.Loss))
	}
}

// TestExactLossesAlongAGame: every move's loss in an endgame played by the
// first legal move is the exact value of the position before it less the
// exact value after it, from the mover's side, and the curve ends at the
// result.
func TestExactLossesAlongAGame(t *testing.T) {
	p := ffo(t)[4] // FFO #5
	g := gameFrom(t, p.Position)
	eng := engine()
	a, err := Game(context.Background(), eng, &g, Options{})
	require.NoError(t, err)
	curve := a.Curve()
	require.Len(t, curve, len(g.Moves)+1)
	for i, m := range a.Moves {
		before, after := curve[i], curve[i+1]
		if m.Color == 2 {
			before, after = -before, -after
		}
		assert.InDelta(t, before-after, m.Loss, 0, "move %d %s", i+1, m.Square)
		if m.Move == othello.Pass {
			assert.True(t, m.Forced)
			assert.Equal(t, othello.Pass, m.Best)
		}
	}
	sum := a.Summary()
	assert.Positive(t, sum.Counted[0]+sum.Counted[1])
}

// TestMidgameAnalysis: a whole random std game (and a 10×10 one) is
// analysed in bounded time with a shallow search: each position by the
// midgame search before the exact ones, losses never negative, the best
// move of each position legal, and a move whose loss is 0 either the best
// move or as good.
func TestMidgameAnalysis(t *testing.T) {
	for _, mode := range []othello.Mode{othello.Std, othello.Octagon, othello.Anti} {
		t.Run(mode.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(mode), 9))
			start, _ := othello.RandomOpening(mode, rng)
			var moves []int
			pos := start
			for !pos.GameOver() {
				mv := othello.Pass
				if l := pos.LegalMoves(); len(l) > 0 {
					mv = l[rng.IntN(len(l))]
				}
				moves = append(moves, mv)
				pos, _ = pos.Play(mv)
			}
			g := gameFrom(t, start, moves...)
			a, err := Game(context.Background(), engine(), &g, Options{Depth: 4, ExactEmpties: 10})
			require.NoError(t, err)
			require.NoError(t, a.Check(&g))
			positions, err := g.Replay()
			require.NoError(t, err)
			exactSeen := false
			for i, m := range a.Moves {
				if m.Move == othello.Pass {
					continue
				}
				assert.True(t, positions[i].Legal().Has(m.Best), "move %d: best %s is legal", i+1, m.BestSquare)
				assert.GreaterOrEqual(t, m.Loss, 0.0)
				if m.Exact {
					exactSeen = true
				} else {
					assert.False(t, exactSeen, "move %d: midgame after an exact one", i+1)
					assert.LessOrEqual(t, m.Depth, 4)
				}
			}
			assert.True(t, exactSeen)
			assert.Equal(t, "flipbot search, depth 4, exact from 10 empties", a.Engine)
		})
	}
}

// slowEngine answers every search only when its context ends, as a search
// cut short by a match starting would.
type slowEngine struct{ calls int }

func (s *slowEngine) Search(ctx context.Context, pos othello.Position, lim search.Limits) (engines.Result, error) {
	s.calls++
	<-ctx.Done()
	return engines.Result{Move: pos.LegalMoves()[0]}, nil
}

// TestStopsAtOnce: cancelling the context ends the analysis with the
// context's error, and no result.
func TestStopsAtOnce(t *testing.T) {
	g := gameFrom(t, ffo(t)[0].Position)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	eng := &slowEngine{}
	start := time.Now()
	a, err := Game(ctx, eng, &g, Options{})
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Empty(t, a.Moves)
	assert.Equal(t, 1, eng.calls, "no search after the context ended")
}

// failingEngine fails every search.
type failingEngine struct{}

func (failingEngine) Search(context.Context, othello.Position, search.Limits) (engines.Result, error) {
	return engines.Result{}, errors.New("engine broken")
}

func TestEngineErrorsAreReturned(t *testing.T) {
	g := gameFrom(t, ffo(t)[0].Position)
	_, err := Game(context.Background(), failingEngine{}, &g, Options{})
	require.ErrorContains(t, err, "engine broken")
}

// TestExactTimeoutFallsBackToTheMidgame: a solve that does not finish in
// ExactTime leaves that position, and every earlier one, to the midgame
// search.
func TestExactTimeoutFallsBackToTheMidgame(t *testing.T) {
	g := gameFrom(t, ffo(t)[18].Position) // FFO #19, 18 empties
	a, err := Game(context.Background(), engine(), &g, Options{ExactTime: time.Nanosecond, Depth: 3})
	require.NoError(t, err)
	assert.False(t, a.Moves[0].Exact)
	assert.True(t, a.Final.Exact, "the finished position is its result")
}

// TestMissedWipeoutIsABlunder: the side to move can force its opponent's
// wipe-out within two of its moves (positions found by the brute force
// of engines/search's wipe_test.go, testdata/wipeouts.txt) and plays
// another move. The analysis, at depth 4 with the trained evaluation,
// names the wipe-out best and marks the move played a blunder, and a
// turning point when it leaves a lost game. (Before the search scored a
// wipe-out at its leaves as the end of the game, it named the move played
// best, with no loss.)
func TestMissedWipeoutIsABlunder(t *testing.T) {
	ev, err := eval.Best()
	require.NoError(t, err)
	for _, c := range []struct {
		mode    othello.Mode
		turn    othello.Color
		placed  othello.Placed
		board   string
		played  string
		best    string
		least   float64 // the score the wipe-out is sure of
		turning bool
	}{
		{othello.Std, othello.Black, othello.Placed{Black: 16, White: 16},
			"XXXXXX--XOXXX---XXOXX-X-XOXOXX--XXXXO---XXXXXO------X--------X--", "f5", "g7", 39, false},
		{othello.Grand, othello.White, othello.Placed{Black: 22, White: 21},
			"--O--OO-----OOOOO-----OOOX-O----OOO-X----OOOOO-X----O-OOO-X--OOOOOOOO---O-O-O-----XOOO-O----O-O---O-", "g3", "j7", 50, true},
	} {
		t.Run(c.mode.String(), func(t *testing.T) {
			start := othello.Position{Mode: c.mode, Turn: c.turn, Placed: c.placed}
			for sq, ch := range c.board {
				switch ch {
				case 'X':
					start.Black = start.Black.Or(othello.Bit(sq))
				case 'O':
					start.White = start.White.Or(othello.Bit(sq))
				}
			}
			mv, err := othello.ParseSquare(c.played, c.mode.Size())
			require.NoError(t, err)
			g := gameFrom(t, start, mv)
			eng := search.New(search.Options{Threads: 2, HashMB: 16, Eval8: ev.Eval8, Eval10: ev.Eval10})
			a, err := Game(context.Background(), eng, &g, Options{Depth: 4, ExactEmpties: 10})
			require.NoError(t, err)
			m := a.Moves[0]
			assert.Equal(t, c.best, m.BestSquare)
			assert.GreaterOrEqual(t, m.Score, c.least)
			assert.GreaterOrEqual(t, m.Loss, record.BlunderLoss, "played %+.2f, best %+.2f", m.Played, m.Score)
			assert.Equal(t, c.turning, slices.Contains(a.TurningPoints, 1), "turning points %v, played %+.2f", a.TurningPoints, m.Played)
		})
	}
}
