package search

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// Forced wipe-outs: positions where the side to move can force a game end
// with one colour at zero discs, won by the side to move under its mode's
// scoring (the opponent at zero; in anti the side to move itself), within
// two of its own moves. They are found by the brute force below, written
// for the test on its own mailbox board (not the engine's bitboards, not
// package othello's move generator), and kept in testdata/wipeouts.txt so
// that the test is fast and deterministic. Regenerate the file with
//
//	go test ./engines/search/ -run TestWipeoutPositions -wipeouts.update

var updateWipeouts = flag.Bool("wipeouts.update", false, "regenerate testdata/wipeouts.txt by random playouts")

// wipeoutFile holds the positions, one a line.
const wipeoutFile = "testdata/wipeouts.txt"

// mbBoard is the test's own board: a mailbox of cells (0 empty, 1 black,
// 2 white, 3 blocked), the colour to move and the discs each colour placed.
type mbBoard struct {
	mode   othello.Mode
	size   int
	cells  []int8
	turn   int8
	placed [3]int
}

var mbDirs = [8][2]int{{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}}

// flips returns the squares colour c turns over by playing sq.
func (b *mbBoard) flips(c int8, sq int) []int {
	if b.cells[sq] != 0 {
		return nil
	}
	var out []int
	r0, c0 := sq/b.size, sq%b.size
	for _, d := range mbDirs {
		var line []int
		r, col := r0+d[0], c0+d[1]
		for r >= 0 && r < b.size && col >= 0 && col < b.size && b.cells[r*b.size+col] == 3-c {
			line = append(line, r*b.size+col)
			r, col = r+d[0], col+d[1]
		}
		if len(line) > 0 && r >= 0 && r < b.size && col >= 0 && col < b.size && b.cells[r*b.size+col] == c {
			out = append(out, line...)
		}
	}
	return out
}

// moves returns the legal squares of colour c (none once reversi's cap is
// reached).
func (b *mbBoard) moves(c int8) []int {
	if b.mode == othello.Reversi && b.placed[c] >= othello.ReversiCap {
		return nil
	}
	var out []int
	for sq := range b.cells {
		if len(b.flips(c, sq)) > 0 {
			out = append(out, sq)
		}
	}
	return out
}

// play returns the board after the side to move plays sq (legal).
func (b *mbBoard) play(sq int) *mbBoard {
	n := &mbBoard{mode: b.mode, size: b.size, cells: slices.Clone(b.cells), turn: 3 - b.turn, placed: b.placed}
	for _, f := range b.flips(b.turn, sq) {
		n.cells[f] = b.turn
	}
	n.cells[sq] = b.turn
	n.placed[b.turn]++
	return n
}

// pass returns the board with the other colour to move.
func (b *mbBoard) pass() *mbBoard {
	n := *b
	n.turn = 3 - b.turn
	return &n
}

func (b *mbBoard) count(c int8) int {
	k := 0
	for _, v := range b.cells {
		if v == c {
			k++
		}
	}
	return k
}

// wipeWinner returns the colour that wins a wiped-out board (0 when no
// colour is at zero): the one with discs, or in anti the one without.
func (b *mbBoard) wipeWinner() int8 {
	for c := int8(1); c <= 2; c++ {
		if b.count(c) == 0 {
			if b.mode.LessWins() {
				return c
			}
			return 3 - c
		}
	}
	return 0
}

// noWipe is the brute force's "no forced wipe-out" value.
const noWipe = -1 << 20

// forcedWipe returns the largest final score (discs, empties to nobody)
// that colour s is sure of by a wipe-out it wins, with at most k moves of
// its own from b, or noWipe: the opponent's every reply is tried.
func (b *mbBoard) forcedWipe(s int8, k int) int {
	if w := b.wipeWinner(); w != 0 {
		if w != s {
			return noWipe
		}
		return b.count(s) + b.count(3-s) // the loser has none (anti: the winner)
	}
	mv := b.moves(b.turn)
	if len(mv) == 0 {
		if len(b.moves(3-b.turn)) == 0 {
			return noWipe // the game ends otherwise
		}
		return b.pass().forcedWipe(s, k)
	}
	if b.turn == s {
		if k == 0 {
			return noWipe
		}
		if k == 1 && !b.mode.LessWins() {
			// Only this move can win: it must turn over every disc.
			best, left := noWipe, b.count(3-s)
			for _, sq := range mv {
				if len(b.flips(s, sq)) == left {
					best = max(best, b.count(s)+left+1)
				}
			}
			return best
		}
		best := noWipe
		for _, sq := range mv {
			best = max(best, b.play(sq).forcedWipe(s, k-1))
		}
		return best
	}
	if k == 0 && !b.mode.LessWins() {
		return noWipe // the opponent cannot lose its own discs
	}
	worst := -noWipe
	for _, sq := range mv {
		v := b.play(sq).forcedWipe(s, k)
		if v == noWipe {
			return noWipe
		}
		worst = min(worst, v)
	}
	return worst
}

// wipeMoves returns the moves of the side to move that force a won
// wipe-out within k of its moves, and the score each is sure of.
func (b *mbBoard) wipeMoves(k int) map[int]int {
	out := map[int]int{}
	for _, sq := range b.moves(b.turn) {
		if v := b.play(sq).forcedWipe(b.turn, k-1); v != noWipe {
			out[sq] = v
		}
	}
	return out
}

// mbFrom copies an othello position onto the test's board.
func mbFrom(pos othello.Position) *mbBoard {
	b := &mbBoard{mode: pos.Mode, size: pos.Size(), cells: make([]int8, pos.Mode.Squares()), turn: int8(pos.Turn)}
	for sq := range b.cells {
		switch {
		case pos.Mode.Blocked().Has(sq):
			b.cells[sq] = 3
		default:
			b.cells[sq] = int8(pos.At(sq))
		}
	}
	b.placed[1], b.placed[2] = pos.Placed.Black, pos.Placed.White
	return b
}

// position converts the test's board back to an othello position.
func (b *mbBoard) position() othello.Position {
	pos := othello.Position{Mode: b.mode, Turn: othello.Color(b.turn), Placed: othello.Placed{Black: b.placed[1], White: b.placed[2]}}
	for sq, v := range b.cells {
		switch v {
		case 1:
			pos.Black = pos.Black.Or(othello.Bit(sq))
		case 2:
			pos.White = pos.White.Or(othello.Bit(sq))
		}
	}
	return pos
}

// String is the board's line in wipeouts.txt: mode, colour to move (X
// black, O white), placed discs of black and white, and the cells row by
// row from a1 (X, O, - empty, # blocked).
func (b *mbBoard) String() string {
	var sb strings.Builder
	for _, v := range b.cells {
		sb.WriteByte("-XO#"[v])
	}
	return fmt.Sprintf("%s %c %d %d %s", b.mode, "-XO"[b.turn], b.placed[1], b.placed[2], sb.String())
}

// parseMB reads a line of wipeouts.txt.
func parseMB(line string) (*mbBoard, error) {
	f := strings.Fields(line)
	if len(f) != 5 {
		return nil, fmt.Errorf("want 5 fields, got %d", len(f))
	}
	mode, err := othello.ParseMode(f[0])
	if err != nil {
		return nil, err
	}
	b := &mbBoard{mode: mode, size: mode.Size()}
	switch f[1] {
	case "X":
		b.turn = 1
	case "O":
		b.turn = 2
	default:
		return nil, fmt.Errorf("bad colour %q", f[1])
	}
	for i, s := range f[2:4] {
		if b.placed[i+1], err = strconv.Atoi(s); err != nil {
			return nil, err
		}
	}
	if len(f[4]) != mode.Squares() {
		return nil, fmt.Errorf("want %d cells, got %d", mode.Squares(), len(f[4]))
	}
	for _, ch := range f[4] {
		i := strings.IndexRune("-XO#", ch)
		if i < 0 {
			return nil, fmt.Errorf("bad cell %q", ch)
		}
		b.cells = append(b.cells, int8(i))
	}
	return b, nil
}

// wipeoutCandidate reports whether b is worth keeping: the side to move
// can force a won wipe-out within two of its moves, and not every move
// does (the choice matters), and the colour to be wiped out still has
// wipeVictimDiscs discs.
func wipeoutCandidate(b *mbBoard) bool {
	mv := b.moves(b.turn)
	if len(mv) < 2 {
		return false
	}
	if b.mode == othello.Reversi && slices.ContainsFunc([]int{27, 28, 35, 36}, func(sq int) bool { return b.cells[sq] == 0 }) {
		return false
	}
	victim := 3 - b.turn
	if b.mode.LessWins() {
		victim = b.turn
	}
	if b.count(victim) < wipeVictimDiscs {
		return false // too plain: every line ends at once
	}
	w := b.wipeMoves(2)
	return len(w) > 0 && len(w) < len(mv)
}

// wipeVictimDiscs is the fewest discs the colour to be wiped out has in a
// kept position: fewer, and the game tree is so small that any search
// sees the end.
const wipeVictimDiscs = 5

// playoutMove picks a move of the random playouts: half the time the one
// turning over the most discs for attacker and the fewest for its
// opponent, so that the games reach lopsided counts; else any.
func playoutMove(b *mbBoard, mv []int, attacker int8, rng *rand.Rand) int {
	if rng.IntN(2) == 0 {
		return mv[rng.IntN(len(mv))]
	}
	best, bestK := mv[0], -1
	for _, sq := range mv {
		k := len(b.flips(b.turn, sq))
		if b.turn != attacker {
			k = 100 - k
		}
		if k > bestK {
			best, bestK = sq, k
		}
	}
	return best
}

// generateWipeouts walks random games of every mode from FlipSight-like
// starts (playoutMove) and keeps perMode positions of each that wipeoutCandidate takes.
func generateWipeouts(t *testing.T, perMode, maxTries int) []*mbBoard {
	rng := rand.New(rand.NewPCG(38, 1))
	var out []*mbBoard
	for _, m := range []othello.Mode{othello.Std, othello.Grand, othello.Octagon, othello.Reversi, othello.Anti} {
		found := 0
		for tries := 0; found < perMode && tries < maxTries; tries++ {
			start, _ := othello.RandomOpening(m, rng)
			b := mbFrom(start)
			attacker := int8(1 + rng.IntN(2))
			for {
				mv := b.moves(b.turn)
				if len(mv) == 0 {
					if len(b.moves(3-b.turn)) == 0 {
						break
					}
					b = b.pass()
					continue
				}
				// Cross-check the test's rules against package othello.
				require.Equal(t, b.position().LegalMoves(), mv, "%s", b)
				if wipeoutCandidate(b) {
					out = append(out, b)
					found++
					break
				}
				b = b.play(playoutMove(b, mv, attacker, rng))
			}
		}
		t.Logf("%s: %d positions", m, found)
	}
	return out
}

func readWipeouts(t *testing.T) []*mbBoard {
	f, err := os.Open(wipeoutFile)
	require.NoError(t, err)
	defer f.Close()
	var out []*mbBoard
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		b, err := parseMB(line)
		require.NoError(t, err, "%s: %q", wipeoutFile, line)
		out = append(out, b)
	}
	require.NoError(t, sc.Err())
	return out
}

// TestWipeoutPositions checks the stored positions against the brute
// force (and rewrites them with -wipeouts.update).
func TestWipeoutPositions(t *testing.T) {
	if *updateWipeouts {
		var sb strings.Builder
		sb.WriteString("# Positions where the side to move forces a wipe-out it wins within two of its moves\n" +
			"# (engines/search/wipe_test.go). Regenerate: go test ./engines/search/ -run TestWipeoutPositions -wipeouts.update\n" +
			"# mode, colour to move, discs placed by black and white, cells from a1 row by row (X black, O white, - empty, # blocked)\n")
		for _, b := range generateWipeouts(t, 8, 1000) {
			sb.WriteString(b.String() + "\n")
		}
		require.NoError(t, os.WriteFile(wipeoutFile, []byte(sb.String()), 0o644))
	}
	boards := readWipeouts(t)
	modes := map[othello.Mode]int{}
	for _, b := range boards {
		require.True(t, wipeoutCandidate(b), "%s", b)
		require.Equal(t, b.position().LegalMoves(), b.moves(b.turn), "%s", b)
		modes[b.mode]++
	}
	// Anti has none: random games rarely force the opponent to take
	// every disc (TestLeafScoresAWipeoutAsTheEnd covers its leaves).
	for _, m := range []othello.Mode{othello.Std, othello.Grand, othello.Octagon, othello.Reversi} {
		require.Positive(t, modes[m], "no %s position", m)
	}
}

// TestLeafScoresAWipeoutAsTheEnd searches positions where the side to
// move wipes the opponent out with its only move, to depths 1 and 2 (the
// wipe-out on the last ply, and at a leaf): the value is the final score,
// not the evaluation's, in std, anti (where the wipe-out loses) and grand.
func TestLeafScoresAWipeoutAsTheEnd(t *testing.T) {
	ev, err := eval.Best()
	require.NoError(t, err)
	// Black a1 b1, white c1 d1: black's only move, e1, takes both.
	row := func(mode othello.Mode) othello.Position {
		return othello.Position{Mode: mode, Turn: othello.Black,
			Black: othello.Bit(0).Or(othello.Bit(1)), White: othello.Bit(2).Or(othello.Bit(3))}
	}
	for _, c := range []struct {
		pos  othello.Position
		want int
	}{{row(othello.Std), 5}, {row(othello.Anti), -5}, {row(othello.Grand), 5}} {
		for _, threads := range []int{1, 2} {
			for depth := 1; depth <= 2; depth++ {
				e := New(Options{Threads: threads, HashMB: 1, Eval8: ev.Eval8, Eval10: ev.Eval10})
				pos := c.pos
				require.Equal(t, []int{4}, pos.LegalMoves())
				res, err := e.Search(context.Background(), pos, Limits{Depth: depth})
				require.NoError(t, err)
				require.Equal(t, float64(c.want), res.Score, "%s depth %d threads %d", pos.Mode, depth, threads)
			}
		}
	}
}

// TestSearchFindsForcedWipeouts searches each stored position with the
// default options (Multi-ProbCut on) and the trained evaluation at depths
// that cover the wipe-out, on one and two threads: the value must be at
// least the score the wipe-out is sure of. (The move may be another one
// valued as high: a longer forced wipe-out can score more.) Before the
// leaves scored a wipe-out as the end of the game, 13, 7, 6 and 3 of the
// 30 positions failed at depths 3, 4, 6 and 8 on one thread, 2 at depths
// 10 and 12; with Multi-ProbCut off, only at depth 3 (13).
func TestSearchFindsForcedWipeouts(t *testing.T) {
	ev, err := eval.Best()
	require.NoError(t, err)
	boards := readWipeouts(t)
	depths := []int{3, 4, 5, 6, 8, 10, 12}
	if testing.Short() {
		depths = []int{3, 4, 6}
	}
	for _, threads := range []int{1, 2} {
		for _, depth := range depths {
			t.Run(fmt.Sprintf("threads=%d/depth=%d", threads, depth), func(t *testing.T) {
				e := New(Options{Threads: threads, HashMB: 4, Eval8: ev.Eval8, Eval10: ev.Eval10})
				missed := 0
				for _, b := range boards {
					pos := b.position()
					wipes := b.wipeMoves(2)
					sure := noWipe
					for _, v := range wipes {
						sure = max(sure, v)
					}
					e.ClearHash()
					res, err := e.Search(context.Background(), pos, Limits{Depth: depth})
					require.NoError(t, err)
					if res.Score < float64(sure) {
						missed++
						var names []string
						for sq, v := range wipes {
							names = append(names, fmt.Sprintf("%s(%+d)", othello.SquareName(sq, pos.Size()), v))
						}
						slices.Sort(names)
						t.Errorf("%s: played %s at %+.2f, depth %d; forced wipe-outs: %s\n%s", pos.Mode,
							othello.SquareName(res.Move, pos.Size()), res.Score, res.Depth, strings.Join(names, " "), pos)
					}
				}
				t.Logf("%d of %d positions missed", missed, len(boards))
			})
		}
	}
}
