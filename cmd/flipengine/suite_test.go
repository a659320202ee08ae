package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// randomGame plays random legal moves from the start to the game's end and
// returns the moves (passes left out, as WTHOR records them).
func randomGame(rng *rand.Rand) []int {
	pos := othello.New(othello.Std)
	var moves []int
	for !pos.GameOver() {
		legal := pos.LegalMoves()
		if len(legal) == 0 {
			pos, _ = pos.Play(othello.Pass)
			continue
		}
		mv := legal[rng.IntN(len(legal))]
		moves = append(moves, mv)
		pos, _ = pos.Play(mv)
	}
	return moves
}

// wthorBytes is a WTHOR file of the games (the format of
// engines/eval/train's reader: a 16-byte header, 68 bytes a game).
func wthorBytes(games ...[]int) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(games)))
	binary.LittleEndian.PutUint16(b[10:], 2026)
	b[12], b[14] = 8, 24
	for _, g := range games {
		r := make([]byte, 68)
		for i, mv := range g {
			r[8+i] = byte(10*(mv/8+1) + mv%8 + 1)
		}
		b = append(b, r...)
	}
	return b
}

// randomWthor writes a WTHOR file of n random games (seeded) in a
// temporary folder and returns its path.
func randomWthor(t *testing.T, seed uint64, n int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	var games [][]int
	for range n {
		games = append(games, randomGame(rng))
	}
	file := filepath.Join(t.TempDir(), "WTH_2026.wtb")
	require.NoError(t, os.WriteFile(file, wthorBytes(games...), 0o600))
	return file
}

// negamax is the exact score for the side to move by plain alpha-beta over
// the rules alone (not the engine under test), empties to the winner.
func negamax(pos othello.Position, alpha, beta int) int {
	if pos.GameOver() {
		return finalScore(pos)
	}
	legal := pos.LegalMoves()
	if len(legal) == 0 {
		next, _ := pos.Play(othello.Pass)
		return -negamax(next, -beta, -alpha)
	}
	best := -65
	for _, mv := range legal {
		next, _ := pos.Play(mv)
		v := -negamax(next, -beta, -alpha)
		best = max(best, v)
		alpha = max(alpha, v)
		if alpha >= beta {
			break
		}
	}
	return best
}

// TestSuiteScoresEveryMoveExactly: the suite's lines are positions of the
// games at the asked empties, each legal move listed once, best first, with
// the score a plain alpha-beta over the rules gives; solve and moveloss
// read the file.
func TestSuiteScoresEveryMoveExactly(t *testing.T) {
	file := randomWthor(t, 7, 6)

	var out, errb bytes.Buffer
	code := runSuite([]string{file, "-min", "9", "-max", "10", "-n", "3", "-threads", "1", "-hash", "16"}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	require.Len(t, lines, 3)
	for _, l := range lines {
		p, err := search.ParseOBF(l)
		require.NoError(t, err, l)
		e := p.Position.Empties().Count()
		assert.True(t, e == 9 || e == 10, "%d empties", e)
		legal := p.Position.LegalMoves()
		require.Len(t, p.Scores, len(legal), "every legal move: %s", l)
		prev := 65
		for _, item := range strings.Split(strings.TrimSuffix(strings.SplitN(l, ";", 2)[1], ";"), ";") {
			mv, sc, _ := strings.Cut(strings.TrimSpace(item), ":")
			sq, err := othello.ParseMove(mv, 8)
			require.NoError(t, err)
			child, err := p.Position.Play(sq)
			require.NoError(t, err)
			want := -negamax(child, -65, 65)
			assert.Equal(t, want, p.Scores[sq], "%s in %s", mv, l)
			assert.LessOrEqual(t, p.Scores[sq], prev, "best first: %s", sc)
			prev = p.Scores[sq]
		}
	}

	suite := filepath.Join(t.TempDir(), "suite.obf")
	require.NoError(t, os.WriteFile(suite, out.Bytes(), 0o600))
	out.Reset()
	require.Equal(t, 0, runSolve([]string{suite, "-threads", "1"}, nil, &out, &errb), errb.String())
	assert.Equal(t, 3, strings.Count(out.String(), "  ok"), out.String())
}

// TestSuiteResumesAndSaysWhenGamesRunOut: -skip passes over the positions
// a stopped run wrote (the same positions in the same order), and a suite
// the games cannot fill is an error.
func TestSuiteResumesAndSaysWhenGamesRunOut(t *testing.T) {
	file := randomWthor(t, 8, 4)
	run := func(args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := runSuite(append([]string{file, "-min", "6", "-max", "6", "-threads", "1", "-hash", "16"}, args...), nil, &out, &errb)
		return out.String() + errb.String(), code
	}
	whole, code := run("-n", "2")
	require.Equal(t, 0, code, whole)
	second, code := run("-n", "1", "-skip", "1")
	require.Equal(t, 0, code, second)
	wholeLines := strings.Split(strings.TrimSpace(whole), "\n")
	assert.Contains(t, whole, strings.Split(second, "\n")[1], "the second position again")
	assert.NotContains(t, second, wholeLines[1], "not the first")

	msg, code := run("-n", "50")
	assert.Equal(t, 1, code)
	assert.Contains(t, msg, "the games gave")
	_, code = run("-n", "0")
	assert.Equal(t, 2, code, "a usage error")
}

// TestSolveScoresAPass: a position whose side to move must pass is scored
// by solve as the opponent's score negated (exactScore, shared with the
// suite), as a plain alpha-beta over the rules scores it.
func TestSolveScoresAPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var pos othello.Position
	found := false
	for !found {
		p := othello.New(othello.Std)
		for !p.GameOver() && !found {
			legal := p.LegalMoves()
			if len(legal) == 0 {
				found = p.Empties().Count() <= 12
				if !found {
					p, _ = p.Play(othello.Pass)
				}
				continue
			}
			p, _ = p.Play(legal[rng.IntN(len(legal))])
		}
		pos = p
	}
	file := filepath.Join(t.TempDir(), "pass.obf")
	require.NoError(t, os.WriteFile(file, []byte(obfLine(pos, nil)+"\n"), 0o600))
	var out, errb bytes.Buffer
	require.Equal(t, 0, runSolve([]string{file, "-threads", "1", "-hash", "16", "-json"}, nil, &out, &errb), errb.String())
	var got solveLine
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, "pass", got.Best)
	assert.Equal(t, negamax(pos, -65, 65), got.Score, "%s", pos)
}
