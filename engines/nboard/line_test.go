package nboard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

func TestParseLine(t *testing.T) {
	sq := func(s string) int {
		m, err := othello.ParseSquare(s, 8)
		require.NoError(t, err)
		return m
	}
	f5 := sq("f5")
	tests := []struct {
		in   string
		want Line
		err  bool
	}{
		{"search e7E8d6H4 0 0 13", Line{Kind: LineSearch, Move: sq("e7"), HasEval: true, Depth: 13}, false},
		{"search F5d6 -3.5 0 21", Line{Kind: LineSearch, Move: sq("f5"), Eval: -3.5, HasEval: true, Depth: 21}, false},
		{"search d3 2 0", Line{Kind: LineSearch, Move: sq("d3"), Eval: 2, HasEval: true}, false},
		{"search d3 2 0 99", Line{Kind: LineSearch, Move: sq("d3"), Eval: 2, HasEval: true}, false},
		{"book f5d6 1 1200 30", Line{Kind: LineBook, Move: sq("f5"), Eval: 1, HasEval: true}, false},
		{"search", Line{}, true},
		{"search z9 1 0 3", Line{}, true},
		{"search f5 x 0 3", Line{}, true},
		{"book f", Line{}, true},
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
