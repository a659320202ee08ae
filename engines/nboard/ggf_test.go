package nboard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

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
