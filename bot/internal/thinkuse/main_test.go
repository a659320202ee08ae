package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/anti-leg.jsonl is one leg of flipbot (built-in engine) against
// the arena's level-4 bot, from `flipbot-arena demo --mode anti
// --clock-ms 60000 --games-dir DIR`.
const leg = "testdata/anti-leg.jsonl"

func TestThinkUseMeasuresTheLastMoves(t *testing.T) {
	// The last 12 empties solve in milliseconds: a quick run of the path.
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-min", "4", "-max", "12", "-hash", "4", leg}, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	move := regexp.MustCompile(`^anti leg 0  +(\d+) empties  clock +[\d.]+ s  think +[\d.]+ s  budget +[\d.]+ s  took +[\d.]+ s \( *\d+ %\)  depth \d+ exact (true|false)$`)
	var moves int
	for _, l := range lines {
		if m := move.FindStringSubmatch(l); m != nil {
			moves++
			assert.Contains(t, []string{"4", "6", "8", "9", "10", "11", "12"}, m[1], l)
		}
	}
	// flipbot's moves at 4–12 empties in that leg with more than one
	// legal move.
	assert.Positive(t, moves)
	assert.Regexp(t, `^anti leg 0  \d+ moves: took [\d.]+ s of a think of [\d.]+ s \(\d+ %\)$`, lines[len(lines)-2])
	assert.Regexp(t, `^all: \d+ moves, 1 legs: took`, lines[len(lines)-1])
	assert.Len(t, lines, moves+2)
}

func TestThinkUseRefuses(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("{not json\n"), 0o600))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no file", nil, "usage"},
		{"no move in range", []string{"-min", "70", "-max", "80", leg}, "no move of flipbot's"},
		{"a line that is no record", []string{bad}, "bad.jsonl line 1"},
		{"a missing file", []string{filepath.Join(t.TempDir(), "none.jsonl")}, "none.jsonl"},
		{"an unknown evaluation", []string{"-eval", "nonesuch", leg}, "nonesuch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(context.Background(), tt.args, &bytes.Buffer{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
