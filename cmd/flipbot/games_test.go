package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/engines/othello"
)

// playedGame is a finished leg played by the rules with random moves from
// a random 8-move start, the bot black against opponent, ending at ended.
func playedGame(t *testing.T, mode othello.Mode, seed uint64, matchID int64, opponent string, ended time.Time) record.Game {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	random := func(pos othello.Position) int {
		if l := pos.LegalMoves(); len(l) > 0 {
			return l[rng.IntN(len(l))]
		}
		return othello.Pass
	}
	pos := othello.New(mode)
	var opening []int
	for len(opening) < 8 {
		mv := random(pos)
		var err error
		pos, err = pos.Play(mv)
		require.NoError(t, err)
		if mv != othello.Pass {
			opening = append(opening, mv)
		}
	}
	start := pos
	var moves []record.Move
	clock := [2]int64{60000, 60000}
	for !pos.GameOver() {
		mv := random(pos)
		took := int64(100 + rng.IntN(900))
		clock[pos.Turn-1] -= took
		m := record.Move{Color: int(pos.Turn), Move: mv, Square: othello.SquareName(mv, mode.Size()), TimeMS: took, ClockMS: clock[pos.Turn-1]}
		if pos.Turn == othello.Black {
			score := float64(len(moves)%7) - 3
			m.Score, m.Depth, m.Source = &score, 10, "engine"
		}
		moves = append(moves, m)
		var err error
		pos, err = pos.Play(mv)
		require.NoError(t, err)
	}
	b, w := pos.Count()
	g := record.Game{
		Schema: record.Schema, Source: record.SourceFlipSight, MatchID: matchID, Leg: 0, Ranked: true,
		Mode: mode.String(), BoardSize: mode.Size(), Blocked: mode.BlockedSquares(),
		Black: record.Player{Name: "mybot", ID: 1, Me: true}, White: record.Player{Name: opponent, ID: 2}, MyColor: 1,
		Start: record.Start{Board: start.Board(), Turn: int(start.Turn),
			Placed: [2]int{start.Placed.Black, start.Placed.White}, Opening: opening},
		ClockMS: 60000, Moves: moves, FinalClocksMS: clock, Discs: [2]int{b, w}, ResultDiscs: [2]int{b, w},
		LegStatus: "finished", MatchResult: record.Win, Reason: "discs",
		Started: ended.Add(-time.Minute), Ended: ended,
	}
	if g.Blocked == nil {
		g.Blocked = []int{}
	}
	g.Winner = record.LegWinner(g.Mode, g.ResultDiscs)
	g.Result = record.LegResult(g.Winner, g.MyColor)
	g.ID = record.MakeID(g.MatchID, g.Leg, g.Ended)
	return g
}

// gamesStore keeps a std, an anti, a grand and a second std game (in that
// order of their ends) in a new directory, through record.Store.
func gamesStore(t *testing.T) (string, []record.Game) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "games")
	base := time.Date(2026, 12, 2, 16, 0, 0, 0, time.UTC)
	gs := []record.Game{
		playedGame(t, othello.Std, 1, 101, "house", base),
		playedGame(t, othello.Anti, 2, 102, "HouseBot", base.Add(time.Hour)),
		playedGame(t, othello.Grand, 3, 103, "zebra", base.Add(2*time.Hour)),
		playedGame(t, othello.Std, 4, 104, "zebra", base.Add(3*time.Hour)),
	}
	s := record.Open(record.Options{Dir: dir})
	for _, g := range gs {
		require.NoError(t, s.Add(g))
	}
	return dir, gs
}

func noEnv(string) string { return "" }

// listIDs returns the ids of a list's rows, in order.
func listIDs(t *testing.T, out string) []string {
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.True(t, strings.HasPrefix(lines[0], "ID "), "the header: %q", lines[0])
	var ids []string
	for _, l := range lines[1:] {
		ids = append(ids, strings.Fields(l)[0])
	}
	return ids
}

func TestGamesCommands(t *testing.T) {
	dir, gs := gamesStore(t)
	std1, anti, grand, std2 := gs[0], gs[1], gs[2], gs[3]
	outFile := filepath.Join(t.TempDir(), "out.ggf")
	emptyOut := filepath.Join(t.TempDir(), "empty.jsonl")
	tests := []struct {
		name  string
		args  []string
		code  int
		check func(t *testing.T, stdout, stderr string)
	}{
		{name: "list, newest first", args: []string{"list", "--games-dir", dir}, check: func(t *testing.T, out, _ string) {
			assert.Equal(t, []string{std2.ID, grand.ID, anti.ID, std1.ID}, listIDs(t, out))
			for _, g := range gs {
				assert.Contains(t, out, g.Ended.Local().Format("2006-01-02 15:04"))
			}
			assert.Contains(t, out, fmt.Sprintf("%d–%d (bot black)", std1.ResultDiscs[0], std1.ResultDiscs[1]))
		}},
		{name: "list by mode", args: []string{"list", "--games-dir", dir, "--mode", "std"}, check: func(t *testing.T, out, _ string) {
			assert.Equal(t, []string{std2.ID, std1.ID}, listIDs(t, out))
		}},
		{name: "list by opponent, any case, flags after", args: []string{"list", "--opponent", "HOUSE", "--games-dir", dir}, check: func(t *testing.T, out, _ string) {
			assert.Equal(t, []string{anti.ID, std1.ID}, listIDs(t, out))
		}},
		{name: "list by result", args: []string{"list", "--games-dir", dir, "--result", anti.Result}, check: func(t *testing.T, out, _ string) {
			assert.Contains(t, listIDs(t, out), anti.ID)
			for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
				assert.Contains(t, l, " "+anti.Result+" ")
			}
		}},
		{name: "list, nothing matches", args: []string{"list", "--games-dir", dir, "--mode", "octagon"}, check: func(t *testing.T, out, errs string) {
			assert.Empty(t, out)
			assert.Contains(t, errs, "no games")
		}},
		{name: "list, bad result", args: []string{"list", "--games-dir", dir, "--result", "won"}, code: exitUsage},
		{name: "list, bad flag", args: []string{"list", "--colour", "black"}, code: exitUsage},
		{name: "list, missing directory: no games yet", args: []string{"list", "--games-dir", filepath.Join(dir, "nope")},
			check: func(t *testing.T, out, errs string) {
				assert.Empty(t, out)
				assert.Contains(t, errs, "no games yet: "+filepath.Join(dir, "nope")+" does not exist")
				assert.NoDirExists(t, filepath.Join(dir, "nope"), "list creates nothing")
			}},
		{name: "list, empty directory: no games yet", args: []string{"list", "--games-dir", t.TempDir()},
			check: func(t *testing.T, out, errs string) {
				assert.Empty(t, out)
				assert.Contains(t, errs, "no games yet in ")
			}},
		{name: "list, help", args: []string{"list", "-h"}},

		{name: "export ggf: every mode GGF has", args: []string{"export", "--games-dir", dir, "--format", "ggf"}, check: func(t *testing.T, out, errs string) {
			recs := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.Len(t, recs, len(gs))
			for i, g := range gs { // oldest first
				gg, err := ggf.Parse(recs[i])
				require.NoError(t, err)
				assert.Equal(t, g.White.Name, gg.Tags["PW"])
				assert.Equal(t, g.Mode, gg.Start.Mode.String())
				assert.Equal(t, map[string]string{"std": "8", "anti": "8a", "grand": "10"}[g.Mode], gg.Tags["TY"])
				end, err := gg.Position()
				require.NoError(t, err)
				ps, err := g.Replay()
				require.NoError(t, err)
				assert.Equal(t, ps[len(ps)-1].Board(), end.Board())
			}
			assert.NotContains(t, errs, "left out")
		}},
		{name: "export jsonl, filtered", args: []string{"export", "--format", "jsonl", "--opponent", "zebra", "--games-dir", dir}, check: func(t *testing.T, out, _ string) {
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.Len(t, lines, 2)
			for i, g := range []record.Game{grand, std2} {
				got, err := record.ParseLine([]byte(lines[i]))
				require.NoError(t, err)
				assert.Equal(t, g, got)
			}
		}},
		{name: "export named games to a file", args: []string{"export", "--games-dir", dir, "--format", "ggf", "--out", outFile, std2.ID, std1.ID},
			check: func(t *testing.T, out, errs string) {
				assert.Empty(t, out)
				assert.Contains(t, errs, "wrote 2 games to "+outFile)
				b, err := os.ReadFile(outFile)
				require.NoError(t, err)
				assert.Equal(t, 2, bytes.Count(b, []byte("(;GM[Othello]")))
				des, err := os.ReadDir(filepath.Dir(outFile))
				require.NoError(t, err)
				assert.Len(t, des, 1, "no temporary file left")
			}},
		{name: "export a named anti game as ggf", args: []string{"export", "--games-dir", dir, "--format", "ggf", anti.ID},
			check: func(t *testing.T, out, _ string) { assert.Contains(t, out, "TY[8a]") }},
		{name: "export an unknown game", args: []string{"export", "--games-dir", dir, "--format", "jsonl", "1-0-1"}, code: exitFailure,
			check: func(t *testing.T, out, errs string) {
				assert.Empty(t, out)
				assert.Contains(t, errs, "no such game")
			}},
		{name: "export without --format: jsonl", args: []string{"export", "--games-dir", dir}, check: func(t *testing.T, out, _ string) {
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.Len(t, lines, len(gs))
			for i, g := range gs { // oldest first
				got, err := record.ParseLine([]byte(lines[i]))
				require.NoError(t, err)
				assert.Equal(t, g, got)
			}
		}},
		{name: "export, missing directory: no games yet", args: []string{"export", "--games-dir", filepath.Join(dir, "nope"), "--out", emptyOut},
			check: func(t *testing.T, out, errs string) {
				assert.Contains(t, errs, "no games yet")
				b, err := os.ReadFile(emptyOut)
				require.NoError(t, err, "--out is written, empty")
				assert.Empty(t, b)
			}},
		{name: "export a named game, missing directory", args: []string{"export", "--games-dir", filepath.Join(dir, "nope"), std1.ID}, code: exitFailure,
			check: func(t *testing.T, _, errs string) { assert.Contains(t, errs, "no games yet") }},
		{name: "export, bad format", args: []string{"export", "--games-dir", dir, "--format", "sgf"}, code: exitUsage},
		{name: "export, not an id", args: []string{"export", "--games-dir", dir, "--format", "jsonl", "abc"}, code: exitUsage},

		{name: "show a std game", args: []string{"show", "--games-dir", dir, std1.ID}, check: func(t *testing.T, out, _ string) {
			assert.Contains(t, out, "Game "+std1.ID)
			assert.Contains(t, out, "Mode     std (8x8)")
			assert.Contains(t, out, "mybot (this bot)")
			checkMoves(t, out, std1)
			assert.Contains(t, out, "\n 8  ", "eight ranks")
			assert.NotContains(t, out, "\n 9 ")
			assert.Contains(t, out, "Result   "+std1.Result+" for this bot: ")
			assert.Contains(t, out, fmt.Sprintf("%d–%d (bot black)", std1.ResultDiscs[0], std1.ResultDiscs[1]))
			assert.Contains(t, out, finalBoardText(t, std1))
		}},
		{name: "show a grand game", args: []string{"show", grand.ID, "--games-dir", dir}, check: func(t *testing.T, out, _ string) {
			assert.Contains(t, out, "Mode     grand (10x10)")
			checkMoves(t, out, grand)
			assert.Contains(t, out, "\n10  ", "ten ranks")
			assert.Contains(t, out, finalBoardText(t, grand))
		}},
		{name: "show an anti game", args: []string{"show", "--games-dir", dir, anti.ID}, check: func(t *testing.T, out, _ string) {
			assert.Contains(t, out, "anti: fewer discs win")
		}},
		{name: "show an unknown game", args: []string{"show", "--games-dir", dir, "1-0-1"}, code: exitFailure},
		{name: "show by a unique prefix", args: []string{"show", "--games-dir", dir, "103-0"}, check: func(t *testing.T, out, _ string) {
			assert.Contains(t, out, "Game "+grand.ID)
		}},
		{name: "show by a one-character prefix", args: []string{"show", "--games-dir", dir, std2.ID[:3]}, check: func(t *testing.T, out, _ string) {
			assert.Contains(t, out, "Game "+std2.ID)
		}},
		{name: "show, ambiguous prefix", args: []string{"show", "--games-dir", dir, "10"}, code: exitFailure,
			check: func(t *testing.T, out, errs string) {
				assert.Empty(t, out)
				assert.Contains(t, errs, `"10" is the start of 4 game ids: `+strings.Join([]string{std2.ID, grand.ID, anti.ID, std1.ID}, ", "))
			}},
		{name: "show, no such prefix", args: []string{"show", "--games-dir", dir, "9"}, code: exitFailure,
			check: func(t *testing.T, _, errs string) {
				assert.Contains(t, errs, "no game 9, nor one whose id starts with it")
			}},
		{name: "show, missing directory", args: []string{"show", "--games-dir", filepath.Join(dir, "nope"), "1"}, code: exitFailure,
			check: func(t *testing.T, _, errs string) { assert.Contains(t, errs, "no games yet") }},
		{name: "show, not an id", args: []string{"show", "--games-dir", dir, "x"}, code: exitUsage},
		{name: "show, a human game's id after --", args: []string{"show", "--games-dir", dir, "--", "-7-0-5000"}, code: exitFailure,
			check: func(t *testing.T, _, errs string) { assert.Contains(t, errs, "no game -7-0-5000") }},
		{name: "show, two ids", args: []string{"show", "--games-dir", dir, std1.ID, std2.ID}, code: exitUsage},

		{name: "no command", args: nil, code: exitUsage},
		{name: "unknown command", args: []string{"delete"}, code: exitUsage},
		{name: "help", args: []string{"help"}, check: func(t *testing.T, out, _ string) { assert.Contains(t, out, "flipbot games list") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			code := games(tt.args, noEnv, &out, &errs)
			require.Equal(t, tt.code, code, "stdout:\n%s\nstderr:\n%s", out.String(), errs.String())
			if tt.code != exitOK {
				assert.NotEmpty(t, errs.String(), "an error says why")
			}
			if tt.check != nil {
				tt.check(t, out.String(), errs.String())
			}
		})
	}
}

// checkMoves checks that out lists every move of g, numbered, in the
// standard notation.
func checkMoves(t *testing.T, out string, g record.Game) {
	t.Helper()
	for i, m := range g.Moves {
		name := othello.SquareName(m.Move, g.BoardSize)
		assert.Regexp(t, fmt.Sprintf(`(?m)^ *%d +%s +%s `, i+1, othello.Color(m.Color), name), out, "move %d", i+1)
	}
}

// finalBoardText draws g's final position row by row, as show does.
func finalBoardText(t *testing.T, g record.Game) string {
	ps, err := g.Replay()
	require.NoError(t, err)
	pos := ps[len(ps)-1]
	var b strings.Builder
	for r := range g.BoardSize {
		fmt.Fprintf(&b, "%2d ", r+1)
		for c := range g.BoardSize {
			ch := map[othello.Color]string{othello.Black: "X", othello.White: "O"}[pos.At(r*g.BoardSize+c)]
			if ch == "" {
				ch = "-"
				if pos.Mode.Blocked().Has(r*g.BoardSize + c) {
					ch = "#"
				}
			}
			b.WriteString(" " + ch)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestGamesExportGGFLeavesOutReversi: GGF has no game type for classic
// reversi: its games are left out (and said so), and naming one is an
// error.
func TestGamesExportGGFLeavesOutReversi(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "games")
	base := time.Date(2026, 12, 2, 16, 0, 0, 0, time.UTC)
	oct := playedGame(t, othello.Octagon, 1, 201, "house", base)
	rev := playedGame(t, othello.Reversi, 2, 202, "house", base.Add(time.Hour))
	s := record.Open(record.Options{Dir: dir})
	require.NoError(t, s.Add(oct))
	require.NoError(t, s.Add(rev))

	var out, errs bytes.Buffer
	require.Equal(t, exitOK, games([]string{"export", "--games-dir", dir, "--format", "ggf"}, noEnv, &out, &errs), errs.String())
	assert.Equal(t, 1, strings.Count(out.String(), "(;GM[Othello]"))
	assert.Contains(t, out.String(), "TY[88]")
	assert.Contains(t, out.String(), "BO[88 ")
	assert.Contains(t, errs.String(), "left out 1 reversi game: GGF has no form for classic reversi")

	out.Reset()
	errs.Reset()
	require.Equal(t, exitFailure, games([]string{"export", "--games-dir", dir, "--format", "ggf", rev.ID}, noEnv, &out, &errs))
	assert.Empty(t, out.String())
	assert.Contains(t, errs.String(), "GGF has no form for classic reversi")
}

func TestGamesDefaultDirIsFlipbots(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "flipbot", "games")
	s := record.Open(record.Options{Dir: dir})
	g := playedGame(t, othello.Std, 9, 7, "house", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, s.Add(g))
	getenv := func(k string) string {
		if k == "XDG_DATA_HOME" {
			return data
		}
		return ""
	}
	var out, errs bytes.Buffer
	require.Equal(t, exitOK, games([]string{"list"}, getenv, &out, &errs), errs.String())
	assert.Equal(t, []string{g.ID}, listIDs(t, out.String()))

	out.Reset()
	errs.Reset()
	require.Equal(t, exitUsage, games([]string{"list"}, noEnv, &out, &errs), "no directory known")
	assert.Contains(t, errs.String(), "--games-dir")
}

func TestGamesListShowsNamesSafely(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "games")
	g := playedGame(t, othello.Std, 5, 9, "evil\x1b[2J\u202ebot", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, record.Open(record.Options{Dir: dir}).Add(g))
	for _, args := range [][]string{{"list", "--games-dir", dir}, {"show", "--games-dir", dir, g.ID}} {
		var out, errs bytes.Buffer
		require.Equal(t, exitOK, games(args, noEnv, &out, &errs), errs.String())
		assert.Contains(t, out.String(), "evil?[2J?bot")
		assert.NotContains(t, out.String(), "\x1b")
		assert.NotContains(t, out.String(), "\u202e")
	}
}

// TestGamesAnalyse: `games analyse` analyses the games that have no
// analysis (newest first), keeps them beside the games, prints a line per
// game and the time per mode, leaves analysed games alone unless --redo,
// and `games show` then prints each move's loss.
func TestGamesAnalyse(t *testing.T) {
	dir, gs := gamesStore(t)
	std1, anti, grand, std2 := gs[0], gs[1], gs[2], gs[3]
	run := func(args ...string) (int, string, string) {
		var out, errs bytes.Buffer
		code := games(append([]string{"analyse", "--games-dir", dir, "--threads", "1", "--hash-mb", "8", "--depth", "2",
			"--exact-empties", "8"}, args...), noEnv, &out, &errs)
		return code, out.String(), errs.String()
	}
	code, out, errs := run("--mode", "std")
	require.Equal(t, exitOK, code, errs)
	lines := strings.Split(out, "\n")
	require.True(t, strings.HasPrefix(lines[0], "ID "), out)
	assert.True(t, strings.HasPrefix(lines[1], std2.ID), "newest first: %s", out)
	assert.True(t, strings.HasPrefix(lines[2], std1.ID), out)
	assert.Contains(t, out, "MEAN S/GAME")
	assert.Regexp(t, `(?m)^std +2 `, out)
	assert.NotContains(t, out, anti.ID)

	s := record.Open(record.Options{Dir: dir})
	a, err := s.Analysis(std1.ID)
	require.NoError(t, err)
	assert.Equal(t, "flipbot search, depth 2, exact from 8 empties", a.Engine)
	assert.Len(t, a.Moves, len(std1.Moves))

	var list, lerr bytes.Buffer
	require.Equal(t, exitOK, games([]string{"list", "--games-dir", dir}, noEnv, &list, &lerr))
	assert.Contains(t, list.String(), "LOSS/MOVE")
	mean, _, worst := a.Summary().Side(std1.MyColor)
	assert.Regexp(t, regexp.QuoteMeta(std1.ID)+`.* `+fmt.Sprintf("%.2f", mean)+` +`+regexp.QuoteMeta(worst.String()), list.String())
	assert.Regexp(t, regexp.QuoteMeta(anti.ID)+`.* - +-\n`, list.String(), "not analysed yet")

	code, out, errs = run()
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, anti.ID)
	assert.Contains(t, out, grand.ID)
	assert.NotContains(t, out, std1.ID, "analysed games are left alone")
	code, _, errs = run()
	require.Equal(t, exitOK, code)
	assert.Contains(t, errs, "nothing to analyse")
	code, out, errs = run("--redo", std1.ID)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, std1.ID)

	var show, serr bytes.Buffer
	require.Equal(t, exitOK, games([]string{"show", "--games-dir", dir, std1.ID}, noEnv, &show, &serr), serr.String())
	assert.Contains(t, show.String(), "loss")
	assert.Contains(t, show.String(), "Analysis ")
	assert.Contains(t, show.String(), "mean loss")

	code, _, errs = run("1-0-1")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, "no such game")
	code, _, _ = run("--depth", "99")
	assert.Equal(t, exitUsage, code)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out2, errs2 bytes.Buffer
	assert.Equal(t, exitFailure, gamesCtx(ctx, []string{"analyse", "--games-dir", dir, "--redo", std2.ID}, noEnv, &out2, &errs2))
	assert.Contains(t, errs2.String(), "stopped")
}

// TestGamesNotation: list and show write discs black's first with the
// bot's colour named, name moves by ply ("19. b1") in the worst move and
// the turning points, and say "no mistake" for a side whose worst move
// lost less than an inaccuracy.
func TestGamesNotation(t *testing.T) {
	t.Run("discs: black's first, the bot's colour named", func(t *testing.T) {
		for _, tc := range []struct {
			me   int
			want string
		}{{1, "25–0 (bot black)"}, {2, "25–0 (bot white)"}, {0, "25–0"}} {
			assert.Equal(t, tc.want, discsText(record.Summary{Discs: [2]int{25, 0}, MyColor: tc.me}))
		}
	})
	t.Run("show", func(t *testing.T) {
		g := playedGame(t, othello.Std, 3, 9, "house", time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC))
		a := record.Analysis{Schema: record.AnalysisSchema, Game: g.ID, Engine: "test"}
		for _, m := range g.Moves {
			a.Moves = append(a.Moves, record.AnalysedMove{Color: m.Color, Move: m.Move, Square: m.Square, Best: m.Move, BestSquare: m.Square})
		}
		// White's moves are all best; black's third move (ply 5 or 6) loses 6.
		bad := 4
		if g.Moves[bad].Color != 1 {
			bad = 5
		}
		require.Equal(t, 1, g.Moves[bad].Color)
		a.Moves[bad].Loss = 6
		a.TurningPoints = []int{bad + 1}
		var b bytes.Buffer
		require.NoError(t, writeGameText(&b, &g, &a))
		label := fmt.Sprintf("%d. %s", bad+1, g.Moves[bad].Square)
		assert.Contains(t, b.String(), "Black    mean loss")
		assert.Regexp(t, `Black +mean loss .* worst `+regexp.QuoteMeta(label+" −6.0 (mistake)"), b.String())
		assert.Regexp(t, `White +mean loss .* worst no mistake\n`, b.String())
		assert.Contains(t, b.String(), "Turning points: "+label+"\n")
		assert.Regexp(t, fmt.Sprintf(`(?m)^ *%d +black +%s `, bad+1, g.Moves[bad].Square), b.String(), "the move table numbers the same ply")
	})
}

// TestGamesReadCommandsTouchNothing: list, show and export open the store
// read-only: on a directory whose analysis/ links elsewhere they list the
// games and delete nothing there (before, `games list` deleted the
// target's .tmp-* files and the files named like analyses of old games),
// and leave the directory's own leftovers alone.
func TestGamesReadCommandsTouchNothing(t *testing.T) {
	dir, gs := gamesStore(t)
	target := t.TempDir()
	names := []string{".tmp-draft.txt", ".tmp-thesis.tex", "1-2-3.json", "2024-01-05.json"}
	for _, name := range names {
		require.NoError(t, os.WriteFile(filepath.Join(target, name), []byte("mine"), 0o644))
	}
	if err := os.Symlink(target, filepath.Join(dir, "analysis")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, args := range [][]string{
		{"list", "--games-dir", dir},
		{"show", "--games-dir", dir, gs[0].ID},
		{"export", "--games-dir", dir, "--format", "jsonl"},
	} {
		var out, errs bytes.Buffer
		assert.Equal(t, exitOK, games(args, noEnv, &out, &errs), "%v: %s", args, errs.String())
		assert.NotEmpty(t, out.String())
		for _, name := range names {
			assert.FileExists(t, filepath.Join(target, name), "%v", args)
		}
	}
}
