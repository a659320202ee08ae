package nboard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

func TestParseHintLines(t *testing.T) {
	sq := func(s string) int {
		m, err := othello.ParseSquare(s, 8)
		require.NoError(t, err)
		return m
	}
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
