package ggf

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

func sq(t *testing.T, s string) int {
	t.Helper()
	n, err := othello.ParseSquare(s, 8)
	require.NoError(t, err)
	return n
}

func TestFormatWithMoves(t *testing.T) {
	start := othello.New(othello.Std)
	f5, d6 := sq(t, "f5"), sq(t, "d6")
	s, err := Format(Game{Start: start, Moves: []Move{{Move: f5}, {Move: d6}}})
	require.NoError(t, err)
	assert.Equal(t, "(;GM[Othello]PC[flipbot]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6];)", s)
	g, err := Parse(s)
	require.NoError(t, err)
	got, err := g.Position()
	require.NoError(t, err)
	want, _ := start.Play(f5)
	want, _ = want.Play(d6)
	assert.Equal(t, want.Board(), got.Board())
	assert.Equal(t, othello.Black, got.Turn)
	_, err = Format(Game{Start: start, Moves: []Move{{Move: 0}}})
	require.Error(t, err, "an illegal move cannot be written")
	_, err = Format(Game{Start: othello.New(othello.Reversi)})
	require.Error(t, err, "classic reversi has no GGS game type")
}

// playOut plays mode from its start to the end, move i being the (i mod
// n)-th legal move (or a pass), each with a time and every third with an
// evaluation.
func playOut(t *testing.T, mode othello.Mode) (othello.Position, []Move) {
	t.Helper()
	pos := othello.New(mode)
	var moves []Move
	for i := 0; !pos.GameOver(); i++ {
		mv := othello.Pass
		if l := pos.LegalMoves(); len(l) > 0 {
			mv = l[(i*7)%len(l)]
		}
		m := Move{Move: mv, Time: float64(i%5) + 0.5}
		if i%3 == 0 {
			m.Eval, m.HasEval = float64(i%11)-5, true
		}
		moves = append(moves, m)
		var err error
		pos, err = pos.Play(mv)
		require.NoError(t, err)
	}
	return pos, moves
}

// TestModesRoundTrip: every mode GGS has a game type for is written with
// it (TY, and BO's board type) and read back to the same game: the 10×10
// boards (grand, and the octagon with its 88 playable squares) and anti.
func TestModesRoundTrip(t *testing.T) {
	for _, c := range []struct {
		mode      othello.Mode
		ty, board string
		squares   int
		lastMove  string
	}{
		{othello.Std, "8", "8", 64, ""},
		{othello.Anti, "8a", "8", 64, ""},
		{othello.Grand, "10", "10", 100, "10"},
		{othello.Octagon, "88", "88", 88, "10"},
	} {
		t.Run(c.mode.String(), func(t *testing.T) {
			end, moves := playOut(t, c.mode)
			s, err := Format(Game{Start: othello.New(c.mode), Moves: moves, Tags: map[string]string{"PB": "a", "PW": "b"}})
			require.NoError(t, err)
			assert.Contains(t, s, "TY["+c.ty+"]")
			assert.Regexp(t, `BO\[`+c.board+` [-*O]{`+strconv.Itoa(c.squares)+`} \*\]`, s)
			if c.lastMove != "" {
				assert.Regexp(t, `[BW]\[[A-J]`+regexp.QuoteMeta(c.lastMove)+`[/\]]`, s, "a move on rank 10")
			}
			g, err := Parse(s)
			require.NoError(t, err, s)
			assert.Equal(t, c.mode, g.Start.Mode)
			assert.Equal(t, othello.New(c.mode), g.Start)
			require.Len(t, g.Moves, len(moves))
			for i, m := range moves {
				assert.Equal(t, m.Move, g.Moves[i].Move, "move %d", i)
				assert.Equal(t, m.HasEval, g.Moves[i].HasEval, "move %d", i)
				assert.InDelta(t, m.Time, g.Moves[i].Time, 1e-9, "move %d", i)
			}
			got, err := g.Position()
			require.NoError(t, err)
			assert.Equal(t, end.Board(), got.Board())
			again, err := Format(g)
			require.NoError(t, err)
			assert.Equal(t, s, again, "what Parse reads, Format writes the same")
			assert.True(t, Expresses(c.mode))
		})
	}
	assert.False(t, Expresses(othello.Reversi))
}

// TestParseGameTypes: GGS's game types, as its server writes them, name
// the mode; TY and BO must agree.
func TestParseGameTypes(t *testing.T) {
	std8 := "BO[8 ---------------------------O*------*O--------------------------- *]"
	for _, c := range []struct {
		rec  string
		mode othello.Mode
	}{
		{"(;TY[8]" + std8 + ";)", othello.Std},
		{"(;" + std8 + ";)", othello.Std},
		{"(;TY[8a]" + std8 + ";)", othello.Anti},
		{"(;TY[s8r20]" + std8 + ";)", othello.Std},
		{"(;TY[8kr16a]" + std8 + ";)", othello.Anti},
		{"(;TY[10];)", othello.Grand},
		{"(;TY[88];)", othello.Octagon},
		{"(;TY[s10r30];)", othello.Grand},
	} {
		g, err := Parse(c.rec)
		require.NoError(t, err, c.rec)
		assert.Equal(t, c.mode, g.Start.Mode, c.rec)
	}
	for _, rec := range []string{
		"(;TY[6];)", "(;TY[14];)", "(;TY[10a];)", "(;TY[8q];)", "(;TY[];)", "(;TY[a8];)",
		"(;TY[8]BO[10 " + strings.Repeat("-", 100) + " *];)",
		"(;BO[88 " + strings.Repeat("-", 100) + " *];)",
		"(;BO[10 " + strings.Repeat("-", 88) + " *];)",
	} {
		_, err := Parse(rec)
		assert.Error(t, err, rec)
	}
}

// TestFullRecordRoundTrip writes a whole game with tags, evaluations,
// times and a pass, and reads every part of it back.
func TestFullRecordRoundTrip(t *testing.T) {
	// A game to the end: play the first legal move (or pass) until over.
	pos := othello.New(othello.Std)
	var moves []Move
	for i := 0; !pos.GameOver(); i++ {
		mv := othello.Pass
		if l := pos.LegalMoves(); len(l) > 0 {
			mv = l[i%len(l)]
		}
		m := Move{Move: mv, Time: float64(i%7) + 0.25}
		if i%3 == 0 {
			m.Eval, m.HasEval = float64(i)-20.5, true
		}
		moves = append(moves, m)
		var err error
		pos, err = pos.Play(mv)
		require.NoError(t, err)
	}
	b, w := pos.Count()
	tags := map[string]string{
		"PB": "alice]x\\y", "PW": "bob", "DT": Date(time.Date(2026, 12, 2, 16, 35, 1, 0, time.UTC)),
		"TI": Clock(time.Minute), "RE": Result(b-w, false), "XX": "extra",
	}
	s, err := Format(Game{Start: othello.New(othello.Std), Moves: moves, Tags: tags})
	require.NoError(t, err)
	assert.Contains(t, s, "DT[2026.12.02_16:35:01.UTC]")
	assert.Contains(t, s, "TI[01:00]")
	g, err := Parse(s)
	require.NoError(t, err)
	want := map[string]string{"PC": "flipbot", "TY": "8"}
	for k, v := range tags {
		want[k] = v
	}
	assert.Equal(t, want, g.Tags)
	require.Len(t, g.Moves, len(moves))
	for i, m := range moves {
		assert.Equal(t, m.Move, g.Moves[i].Move, "move %d", i)
		assert.Equal(t, m.HasEval, g.Moves[i].HasEval, "move %d", i)
		assert.InDelta(t, m.Eval, g.Moves[i].Eval, 1e-9, "move %d", i)
		assert.InDelta(t, m.Time, g.Moves[i].Time, 1e-9, "move %d", i)
	}
	end, err := g.Position()
	require.NoError(t, err)
	assert.Equal(t, pos.Board(), end.Board())
}

func TestResult(t *testing.T) {
	assert.Equal(t, "+12.00", Result(12, false))
	assert.Equal(t, "-4.00:t", Result(-4, true))
	assert.Equal(t, "0.00", Result(0, false))
}

func TestParseNBoardGame(t *testing.T) {
	// As NBoard sends it, with evals, times and a pass.
	s := "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]" +
		"BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]" +
		"B[F5//2.45]W[f6/-1.00/0.5]B[E6];)"
	g, err := Parse(s)
	require.NoError(t, err)
	require.Len(t, g.Moves, 3)
	assert.False(t, g.Moves[0].HasEval)
	assert.InDelta(t, 2.45, g.Moves[0].Time, 1e-9)
	assert.True(t, g.Moves[1].HasEval)
	assert.InDelta(t, -1.0, g.Moves[1].Eval, 1e-9)
	assert.Equal(t, othello.White, g.Moves[1].Color)
	assert.Equal(t, "chris", g.Tags["PW"])
	pos, err := g.Position()
	require.NoError(t, err)
	assert.Equal(t, othello.White, pos.Turn)
}

func TestParseErrors(t *testing.T) {
	for _, s := range []string{
		"",
		"GM[Othello]",
		"(;GM[Othello]",
		"(;GM[Go];)",
		"(;BO[10 ];)",
		"(;BO[8 ----];)",
		"(;BO[8 ----------------------------------------------------------------? *];)",
		"(;BO[8 ---------------------------------------------------------------- ?];)",
		"(;B[Z9];)",
		"(;B[F5/x];)",
		"(;B[F5//-1];)",
		"(;GM[Othello;)",
		"(;[x];)",
	} {
		_, err := Parse(s)
		assert.Error(t, err, s)
	}
	g, err := Parse("(;B[A1];)")
	require.NoError(t, err)
	_, err = g.Position()
	require.Error(t, err, "an illegal move fails the replay")
}

func FuzzParse(f *testing.F) {
	s, _ := Format(Game{Start: othello.New(othello.Std), Moves: []Move{{Move: 37, Eval: 1, HasEval: true}, {Move: 43, Time: 2}}})
	grand, _ := Format(Game{Start: othello.New(othello.Grand), Moves: []Move{{Move: 46}}})
	octagon, _ := Format(Game{Start: othello.New(othello.Octagon)})
	anti, _ := Format(Game{Start: othello.New(othello.Anti), Moves: []Move{{Move: 37}}})
	for _, seed := range []string{s, grand, octagon, anti, "(;TY[s10r12];)", "(;B[PA]W[F5/1/2];)", "(;BO[8 * ];)", `(;PB[a\]b];)`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := Parse(s)
		if err != nil {
			return
		}
		pos, err := g.Position()
		if err != nil {
			return
		}
		if !pos.Black.And(pos.White).IsZero() {
			t.Fatalf("%q: a square is both black and white", s)
		}
		// Anything parsed and replayed can be written and read back.
		out, err := Format(g)
		if err != nil {
			return // implicit passes are not written back
		}
		g2, err := Parse(out)
		if err != nil {
			t.Fatalf("cannot read back %q: %v", out, err)
		}
		pos2, err := g2.Position()
		if err != nil || pos2.Black != pos.Black || pos2.White != pos.White || pos2.Mode != pos.Mode {
			t.Fatalf("round trip of %q differs: %v", s, err)
		}
	})
}
