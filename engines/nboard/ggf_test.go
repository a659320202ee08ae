package nboard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/internal/enginetest"
	"flipbot.dev/flipbot/engines/othello"
)

func TestFormatParseRoundTrip(t *testing.T) {
	for i, pos := range enginetest.Positions(t, 20) {
		s, err := FormatGGF(pos, nil)
		require.NoError(t, err)
		g, err := ParseGGF(s)
		require.NoError(t, err, s)
		got, err := g.Position()
		require.NoError(t, err)
		assert.Equal(t, pos.Black, got.Black, "position %d", i)
		assert.Equal(t, pos.White, got.White, "position %d", i)
		assert.Equal(t, pos.Turn, got.Turn, "position %d", i)
	}
}

func TestFormatWithMoves(t *testing.T) {
	start := othello.New(othello.Std)
	f5, _ := othello.ParseSquare("f5", 8)
	d6, _ := othello.ParseSquare("d6", 8)
	s, err := FormatGGF(start, []int{f5, d6})
	require.NoError(t, err)
	assert.Equal(t, "(;GM[Othello]PC[flipbot]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6];)", s)
	g, err := ParseGGF(s)
	require.NoError(t, err)
	got, err := g.Position()
	require.NoError(t, err)
	want, _ := start.Play(f5)
	want, _ = want.Play(d6)
	assert.Equal(t, want.Board(), got.Board())
	assert.Equal(t, othello.Black, got.Turn)
	_, err = FormatGGF(start, []int{0})
	require.Error(t, err, "an illegal move cannot be written")
	_, err = FormatGGF(othello.New(othello.Grand), nil)
	require.Error(t, err)
}

func TestParseNBoardGame(t *testing.T) {
	// As NBoard sends it, with evals, times and a pass.
	s := "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]" +
		"BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]" +
		"B[F5//2.45]W[f6/-1.00/0.5]B[E6];)"
	g, err := ParseGGF(s)
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

func TestParseGGFErrors(t *testing.T) {
	for _, s := range []string{
		"",
		"GM[Othello]",
		"(;GM[Othello]",
		"(;GM[Go];)",
		"(;BO[10 " + string(make([]byte, 0)) + "];)",
		"(;BO[8 ----];)",
		"(;BO[8 ----------------------------------------------------------------? *];)",
		"(;BO[8 ---------------------------------------------------------------- ?];)",
		"(;B[Z9];)",
		"(;B[F5/x];)",
		"(;GM[Othello;)",
		"(;[x];)",
	} {
		_, err := ParseGGF(s)
		assert.Error(t, err, s)
	}
	g, err := ParseGGF("(;B[A1];)")
	require.NoError(t, err)
	_, err = g.Position()
	require.Error(t, err, "an illegal move fails the replay")
}

func TestParseLine(t *testing.T) {
	f5, _ := othello.ParseSquare("f5", 8)
	tests := []struct {
		in   string
		want Line
		err  bool
	}{
		{"=== F5/1.50/0.10", Line{Kind: LineMove, Move: f5, Eval: 1.5, HasEval: true, Time: 0.1}, false},
		{"=== f5 0.00 0.0", Line{Kind: LineMove, Move: f5, HasEval: true}, false},
		{"===F5", Line{Kind: LineMove, Move: f5}, false},
		{"=== PA", Line{Kind: LineMove, Move: othello.Pass}, false},
		{"=== pa 0.00 0.0", Line{Kind: LineMove, Move: othello.Pass, HasEval: true}, false},
		{"=== F5//2.0", Line{Kind: LineMove, Move: f5, Time: 2}, false},
		{"pong 12", Line{Kind: LinePong, N: 12}, false},
		{"PONG 3", Line{Kind: LinePong, N: 3}, false},
		{"set myname Edax21", Line{Kind: LineMyName, Text: "Edax21"}, false},
		{"nodestats 1000 0.50", Line{Kind: LineNodeStats, Nodes: 1000, Time: 0.5}, false},
		{"status Edax is thinking", Line{Kind: LineStatus, Text: "Edax is thinking"}, false},
		{"search F5 1.0 0 12", Line{Kind: LineSearch, Move: f5, Eval: 1, HasEval: true, Depth: 12}, false},
		{"", Line{}, false},
		{"===", Line{}, true},
		{"=== z9", Line{}, true},
		{"=== F5/NaN", Line{}, true},
		{"pong", Line{}, true},
		{"pong x", Line{}, true},
		{"nodestats -1", Line{}, true},
	}
	for _, tc := range tests {
		got, err := ParseLine(tc.in)
		if tc.err {
			assert.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func FuzzParseGGF(f *testing.F) {
	s, _ := FormatGGF(othello.New(othello.Std), []int{37, 43})
	for _, seed := range []string{s, "(;B[PA]W[F5/1/2];)", "(;BO[8 * ];)", `(;PB[a\]b];)`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGGF(s)
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
		out, err := FormatGGF(g.Start, moves(g))
		if err != nil {
			return // implicit passes are not written back
		}
		g2, err := ParseGGF(out)
		if err != nil {
			t.Fatalf("cannot read back %q: %v", out, err)
		}
		pos2, err := g2.Position()
		if err != nil || pos2.Board() == nil || pos2.Black != pos.Black || pos2.White != pos.White {
			t.Fatalf("round trip of %q differs: %v", s, err)
		}
	})
}

func moves(g Game) []int {
	out := make([]int, len(g.Moves))
	for i, m := range g.Moves {
		out[i] = m.Move
	}
	return out
}

func FuzzParseLine(f *testing.F) {
	for _, s := range []string{"=== F5/1.50/0.10", "=== f5 0.00 0.0", "=== pa", "pong 1", "nodestats 5 1", "set myname x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLine(s)
		if err != nil {
			return
		}
		if l.Kind == LineMove && l.Move != othello.Pass && (l.Move < 0 || l.Move >= 64) {
			t.Fatalf("%q: move %d off the board", s, l.Move)
		}
	})
}
