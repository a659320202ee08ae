package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines/eval/train"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// runSuite makes a test suite of endgame positions in the OBF format of
// the FFO suites (what solve and moveloss read): positions of real games
// from WTHOR files, at a number of empties drawn from a range, each line
// with every legal move's exact score (the final disc difference for the
// side to move with perfect play, empty squares to the winner). Lines are
// written as they are solved, best move first, with a comment line that
// says where each position comes from, so a run stopped part way keeps
// what it solved; -skip resumes one.
func runSuite(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("suite", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef engineFlags
	ef.register(fs)
	minE := fs.Int("min", 24, "the fewest empties of a position")
	maxE := fs.Int("max", 28, "the most empties of a position")
	n := fs.Int("n", 40, "how many positions")
	skip := fs.Int("skip", 0, "positions to pass over first (to resume a run that wrote that many)")
	seed := fs.Uint64("seed", 1, "the seed of the games' order and of each position's empties")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(files) == 0 || *minE < 1 || *maxE < *minE || *maxE > 59 || *n < 1 || *skip < 0 {
		fmt.Fprintln(stderr, "usage: flipengine suite WTH_YYYY.wtb… [-min E] [-max E] [-n N] [-skip K] [-seed S] [-threads T] [-hash MB]")
		return 2
	}
	var games []train.WthorGame
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "flipengine suite: %v\n", err)
			return 1
		}
		f, err := train.ParseWthor(data)
		if err != nil {
			fmt.Fprintf(stderr, "flipengine suite: %s: %v\n", name, err)
			return 1
		}
		games = append(games, f.Games...)
	}
	eng, err := ef.engine(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine suite: %v\n", err)
		return 1
	}
	defer eng.Close()
	rng := rand.New(rand.NewPCG(*seed, 0x5eed))
	order := rng.Perm(len(games))
	seen := map[othello.Position]bool{}
	made := 0
	for _, gi := range order {
		if made == *skip+*n {
			break
		}
		empties := *minE + rng.IntN(*maxE-*minE+1)
		pos, ok := positionAt(games[gi].Moves, empties)
		if !ok || seen[pos] {
			continue
		}
		seen[pos] = true
		made++
		if made <= *skip {
			continue
		}
		start := time.Now()
		eng.ClearHash()
		scores, nodes, err := moveScores(context.Background(), eng, pos)
		if err != nil {
			fmt.Fprintf(stderr, "flipengine suite: %v\n", err)
			return 1
		}
		took := time.Since(start)
		fmt.Fprintf(stdout, "# %d: game %d, %d empties, %d moves solved in %.1f s, %d nodes\n%s\n",
			made, gi, empties, len(scores), took.Seconds(), nodes, obfLine(pos, scores))
		fmt.Fprintf(stderr, "position %d of %d: %d empties, %.1f s\n", made-*skip, *n, empties, took.Seconds())
	}
	if made < *skip+*n {
		fmt.Fprintf(stderr, "flipengine suite: the games gave %d positions, not %d\n", made-*skip, *n)
		return 1
	}
	return 0
}

// positionAt replays a WTHOR game (passes are not recorded) to the first
// position with exactly empties empty squares where the side to move has
// at least two legal moves; false when the game has none.
func positionAt(moves []int, empties int) (othello.Position, bool) {
	pos := othello.New(othello.Std)
	for _, mv := range moves {
		if pos.Legal().IsZero() {
			pos, _ = pos.Play(othello.Pass)
		}
		if e := pos.Empties().Count(); e == empties && pos.Legal().Count() >= 2 {
			return pos, true
		} else if e < empties {
			return othello.Position{}, false
		}
		next, err := pos.Play(mv)
		if err != nil {
			return othello.Position{}, false
		}
		pos = next
	}
	return othello.Position{}, false
}

// moveScore is a legal move and its exact score for the side to move.
type moveScore struct {
	move, score int
}

// moveScores solves every legal move of pos exactly, best first.
func moveScores(ctx context.Context, eng *search.Engine, pos othello.Position) ([]moveScore, uint64, error) {
	var out []moveScore
	var nodes uint64
	for _, mv := range pos.LegalMoves() {
		child, err := pos.Play(mv)
		if err != nil {
			return nil, nodes, err
		}
		s, n, err := exactScore(ctx, eng, child)
		nodes += n
		if err != nil {
			return nil, nodes, err
		}
		out = append(out, moveScore{mv, -s})
	}
	slices.SortStableFunc(out, func(a, b moveScore) int { return b.score - a.score })
	return out, nodes, nil
}

// exactScore is pos's exact score for its side to move, passes and the
// game's end included, empty squares to the winner.
func exactScore(ctx context.Context, eng *search.Engine, pos othello.Position) (int, uint64, error) {
	if pos.GameOver() {
		return finalScore(pos), 0, nil
	}
	if pos.Legal().IsZero() {
		next, err := pos.Play(othello.Pass)
		if err != nil {
			return 0, 0, err
		}
		s, n, err := exactScore(ctx, eng, next)
		return -s, n, err
	}
	r, err := eng.Search(ctx, pos, search.Limits{Exact: true, EmptiesToWinner: true})
	if err != nil {
		return 0, r.Nodes, fmt.Errorf("solve: %w", err)
	}
	return int(r.Score), r.Nodes, nil
}

// finalScore is the disc difference of an ended game for the side to move,
// empty squares to the winner.
func finalScore(pos othello.Position) int {
	b, w := pos.Count()
	d := b - w
	if e := pos.Empties().Count(); d > 0 {
		d += e
	} else if d < 0 {
		d -= e
	}
	if pos.Turn == othello.White {
		d = -d
	}
	return d
}

// obfLine writes pos and its moves' scores as ParseOBF reads them.
func obfLine(pos othello.Position, scores []moveScore) string {
	var b strings.Builder
	for sq := range 64 {
		switch {
		case pos.Black.Has(sq):
			b.WriteByte('X')
		case pos.White.Has(sq):
			b.WriteByte('O')
		default:
			b.WriteByte('-')
		}
	}
	if pos.Turn == othello.Black {
		b.WriteString(" X;")
	} else {
		b.WriteString(" O;")
	}
	for _, s := range scores {
		fmt.Fprintf(&b, " %s:%+d;", strings.ToUpper(othello.SquareName(s.move, 8)), s.score)
	}
	return b.String()
}
