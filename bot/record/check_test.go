package record

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// game returns a valid finished game of mode.
func game(t testing.TB, mode othello.Mode) Game {
	t.Helper()
	g, err := FromLeg(input(playLeg(t, mode, 3, 77)))
	require.NoError(t, err)
	require.NoError(t, g.Check())
	return g
}

// hugeBlocked returns a std game with the 599,999 blocked squares of
// issue 25.
func hugeBlocked(t testing.TB) Game {
	g := game(t, othello.Std)
	g.Blocked = make([]int, 599_999)
	for i := range g.Blocked {
		g.Blocked[i] = i % 64
	}
	return g
}

// TestCheckRefusesFieldsOutOfRange: each field of a game read from outside
// is checked; the error wraps ErrBadGame and names the field.
func TestCheckRefusesFieldsOutOfRange(t *testing.T) {
	long := strings.Repeat("x", MaxText+1)
	cases := []struct {
		what  string
		mode  othello.Mode
		edit  func(g *Game)
		field string
	}{
		{"599,999 blocked squares", othello.Std, func(g *Game) { *g = hugeBlocked(t) }, "599999 blocked squares, std has 0"},
		{"a blocked square in std", othello.Std, func(g *Game) { g.Blocked = []int{0} }, "blocked squares"},
		{"octagon's 11", othello.Octagon, func(g *Game) { g.Blocked = g.Blocked[1:] }, "11 blocked squares, octagon has 12"},
		{"octagon's with one twice", othello.Octagon, func(g *Game) { g.Blocked[0] = g.Blocked[1] }, "blocked square 1 is not"},
		{"octagon's with one not its", othello.Octagon, func(g *Game) { g.Blocked[0] = 44 }, "blocked square 44 is not"},
		{"a blocked square off the board", othello.Octagon, func(g *Game) { g.Blocked[0] = 1 << 40 }, "is not one of octagon's"},
		{"a long source", othello.Std, func(g *Game) { g.Source = long }, "source is 33 bytes"},
		{"leg 2", othello.Std, func(g *Game) { g.Leg = 2 }, "leg 2 outside"},
		{"leg -1", othello.Std, func(g *Game) { g.Leg = -1 }, "leg -1 outside"},
		{"round -1", othello.Std, func(g *Game) { g.Round = -1 }, "round -1"},
		{"a name of 65 characters", othello.Std, func(g *Game) { g.Black.Name = strings.Repeat("é", 65) }, "black name is 65 characters"},
		{"a name of 2 MiB", othello.Std, func(g *Game) { g.White.Name = strings.Repeat("n", 2<<20) }, "white name is 2097152 bytes"},
		{"my_color 3", othello.Std, func(g *Game) { g.MyColor = 3 }, "my_color 3"},
		{"a start board of 101 cells", othello.Grand, func(g *Game) { g.Start.Board = append(g.Start.Board, 0) }, "start board has 101 cells"},
		{"an opening of 65 moves", othello.Std, func(g *Game) { g.Start.Opening = make([]int, 65) }, "opening has 65 moves"},
		{"an opening square off the board", othello.Std, func(g *Game) { g.Start.Opening = []int{64} }, "opening square 64"},
		{"start turn 0", othello.Std, func(g *Game) { g.Start.Turn = 0 }, "start turn 0"},
		{"placed -1", othello.Std, func(g *Game) { g.Start.Placed[1] = -1 }, "white's placed -1"},
		{"a leg clock of -1", othello.Std, func(g *Game) { g.ClockMS = -1 }, "clock_ms -1"},
		{"a leg clock of a year", othello.Std, func(g *Game) { g.ClockMS = 365 * 86_400_000 }, "clock_ms 31536000000"},
		{"a final clock of -1", othello.Std, func(g *Game) { g.FinalClocksMS[0] = -1 }, "black's final clock -1"},
		{"a final clock of 10^18", othello.Std, func(g *Game) { g.FinalClocksMS[1] = 1e18 }, "white's final clock"},
		{"65 discs", othello.Std, func(g *Game) { g.Discs[0] = 65 }, "black's discs 65"},
		{"-1 result discs", othello.Std, func(g *Game) { g.ResultDiscs[1] = -1 }, "white's result discs -1"},
		{"a long leg status", othello.Std, func(g *Game) { g.LegStatus = long }, "leg_status is 33 bytes"},
		{"winner 3", othello.Std, func(g *Game) { g.Winner = 3 }, "winner 3"},
		{"result lose", othello.Std, func(g *Game) { g.Result = "lose" }, `result "lose"`},
		{"a long match result", othello.Std, func(g *Game) { g.MatchResult = long }, "match_result is 33 bytes"},
		{"a long reason", othello.Std, func(g *Game) { g.Reason = long }, "reason is 33 bytes"},
		{"too many moves", othello.Std, func(g *Game) { g.Moves = make([]Move, MaxMoves(othello.Std)+1) }, "137 moves, at most 136"},
		{"a move off the board", othello.Std, func(g *Game) { g.Moves[0].Move = 64 }, "move 1: square 64"},
		{"a square name not the move's", othello.Std, func(g *Game) { g.Moves[0].Square = "z9" }, `move 1: square name "z9"`},
		{"a move time of -1", othello.Std, func(g *Game) { g.Moves[1].TimeMS = -1 }, "move 2: time_ms -1"},
		{"a move clock of 10^18", othello.Std, func(g *Game) { g.Moves[2].ClockMS = 1e18 }, "move 3: clock_ms"},
		{"depth 1000", othello.Std, func(g *Game) { g.Moves[1].Depth = 1000 }, "move 2: depth 1000"},
		{"a long move source", othello.Std, func(g *Game) { g.Moves[1].Source = long }, "move 2: source is 33 bytes"},
		{"colour 7", othello.Std, func(g *Game) { g.Moves[0].Color = 7 }, "move 1: colour 7"},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			g := game(t, c.mode)
			c.edit(&g)
			err := g.Check()
			require.ErrorIs(t, err, ErrBadGame)
			assert.ErrorContains(t, err, c.field)
			assert.Less(t, len(err.Error()), 200, "the error names the field, not its text")

			line, merr := g.MarshalLine()
			require.NoError(t, merr)
			_, err = ParseLine(line)
			require.ErrorIs(t, err, ErrBadGame, "refused on read")
		})
	}
}

// TestCheckAcceptsTheModesOwnBlockedSquares: octagon's 12 squares in any
// order, and none (empty or null) for the other modes.
func TestCheckAcceptsTheModesOwnBlockedSquares(t *testing.T) {
	g := game(t, othello.Octagon)
	slices.Reverse(g.Blocked)
	require.NoError(t, g.Check())
	for _, mode := range []othello.Mode{othello.Std, othello.Anti, othello.Grand, othello.Reversi} {
		g := game(t, mode)
		g.Blocked = nil
		require.NoError(t, g.Check(), mode)
		line, err := g.MarshalLine()
		require.NoError(t, err)
		assert.Contains(t, string(line), `"blocked":null`)
		_, err = ParseLine(line)
		require.NoError(t, err, mode)
	}
}

// TestParseLineRefusesLongLinesUnread: a line over MaxLineBytes is refused
// before it is decoded, even when it would decode to a valid game.
func TestParseLineRefusesLongLinesUnread(t *testing.T) {
	g := game(t, othello.Std)
	line, err := g.MarshalLine()
	require.NoError(t, err)
	padded := append(bytes.Repeat([]byte(" "), MaxLineBytes), line...)
	_, err = ParseLine(padded)
	require.ErrorIs(t, err, ErrBadGame)
	assert.ErrorContains(t, err, "at most 262144")
	_, err = ParseLine(padded[len(padded)-MaxLineBytes:])
	require.NoError(t, err, "a line of MaxLineBytes is read")
}

// TestLargestGameFitsALine: the largest game Check lets through (the most
// moves on 10×10, every string and number at its widest) is under a third
// of MaxLineBytes, so no game the bot keeps is ever skipped as too long.
func TestLargestGameFitsALine(t *testing.T) {
	wide := strings.Repeat("\x01", MaxText)          // escaped as \u0001
	name := strings.Repeat("\U0001F600", MaxNameLen) // 4 bytes each
	score := -1.2345678901234567e-300
	g := game(t, othello.Grand)
	g.ID = strings.Repeat("-", 64)
	g.Source, g.LegStatus, g.MatchResult, g.Reason = wide, wide, wide, wide
	g.Black.Name, g.White.Name = name, name
	g.Black.ID, g.White.ID, g.MatchID, g.Round = -1<<63, -1<<63, -1<<63, 1<<53-1
	g.Start.Opening = make([]int, 100)
	for i := range g.Start.Opening {
		g.Start.Opening[i] = 99
	}
	g.Moves = make([]Move, MaxMoves(othello.Grand))
	for i := range g.Moves {
		g.Moves[i] = Move{Color: 1, Move: 99, Square: "j10", TimeMS: MaxClockMS, ClockMS: MaxClockMS,
			Score: &score, Depth: MaxDepth, Exact: true, Source: wide}
	}
	line, err := g.MarshalLine()
	require.NoError(t, err)
	t.Logf("the largest game: %d bytes", len(line))
	assert.Less(t, len(line), MaxLineBytes/3)
}

// TestStoreSkipsAHugeBlockedList: the store's line of issue 25 (599,999
// blocked squares, 1.7 MB) is skipped when the store is opened, unread
// past MaxLineBytes; its game is not found. Before the checks it was
// decoded (59 MB allocated with a replay) and served.
func TestStoreSkipsAHugeBlockedList(t *testing.T) {
	dir := t.TempDir()
	bad := hugeBlocked(t)
	bad.ID = MakeID(bad.MatchID, 0, bad.Ended)
	badLine, err := bad.MarshalLine()
	require.NoError(t, err)
	good := game(t, othello.Octagon)
	goodLine, err := good.MarshalLine()
	require.NoError(t, err)
	under := game(t, othello.Std) // just under the line limit
	under.ID = MakeID(under.MatchID, 0, under.Ended.Add(1))
	under.Blocked = make([]int, 60_000)
	underLine, err := under.MarshalLine()
	require.NoError(t, err)
	require.Less(t, len(underLine), MaxLineBytes)
	content := slices.Concat(badLine, underLine, goodLine)
	require.NoError(t, os.WriteFile(filepath.Join(dir, segName(1)), content, 0o644))

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s := Open(Options{Dir: dir})
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20), "bytes allocated opening the store")
	st := s.Status()
	assert.Equal(t, 1, st.Games)
	assert.Equal(t, 2, st.Skipped)
	for _, id := range []string{bad.ID, under.ID} {
		_, err = s.Get(id)
		require.ErrorIs(t, err, ErrNotFound)
	}
	got, err := s.Get(good.ID)
	require.NoError(t, err)
	assert.Equal(t, good, got)
	require.ErrorIs(t, s.Add(bad), ErrBadGame, "nor is such a game kept")

	// The next game goes on in the same file after the skipped lines.
	next := game(t, othello.Anti)
	require.NoError(t, s.Add(next))
	assert.Equal(t, 1, s.Status().Files)
	assert.Equal(t, 2, Open(Options{Dir: dir}).Status().Games)
}
