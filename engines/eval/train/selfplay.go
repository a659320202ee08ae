package train

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// SelfPlay configures self-play data making.
type SelfPlay struct {
	Mode othello.Mode
	// Depth is the midgame search depth of both players.
	Depth int
	// Exact is the number of empties from which every move is an exact
	// solve, and the positions get exact labels.
	Exact int
	// RandomPlies is the number of plies after the start in which a move
	// is random with probability RandomRate (diversity).
	RandomPlies int
	RandomRate  float64
	// Eval8 and Eval10 are the players' evaluation (nil: the baseline).
	Eval8  func(othello.Mode) eval.Evaluator8
	Eval10 func(othello.Mode) eval.Evaluator10
	// Seed makes the games: chunk c of seed s is always the same games.
	Seed uint64
	// GamesPerChunk is the number of games in one chunk file.
	GamesPerChunk int
	// Log receives progress (nil: discard).
	Log *slog.Logger
}

// ChunkPath is the file of chunk c of a self-play run in dir.
func ChunkPath(dir, tag string, c int) string {
	return filepath.Join(dir, fmt.Sprintf("%s-c%05d.fbpd", tag, c))
}

// Run makes chunks first..first+n-1 in dir (named by tag), skipping those
// already there, and returns the number of positions written.
func (sp *SelfPlay) Run(ctx context.Context, dir, tag string, first, n int) (int, error) {
	log := sp.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("self-play: %w", err)
	}
	eng := search.New(search.Options{Threads: 1, HashMB: 4, Eval8: sp.Eval8, Eval10: sp.Eval10})
	start := time.Now()
	total, made := 0, 0
	todo := 0
	for c := first; c < first+n; c++ {
		if _, err := os.Stat(ChunkPath(dir, tag, c)); err != nil {
			todo++
		}
	}
	for c := first; c < first+n; c++ {
		path := ChunkPath(dir, tag, c)
		if _, err := os.Stat(path); err == nil {
			continue
		}
		rng := rand.New(rand.NewPCG(sp.Seed, uint64(sp.Mode)<<40|uint64(c)))
		var recs []Record
		for g := 0; g < sp.GamesPerChunk; g++ {
			eng.ClearHash()
			got, err := sp.Game(ctx, eng, rng)
			if err != nil {
				return total, fmt.Errorf("self-play chunk %d game %d: %w", c, g, err)
			}
			recs = append(recs, got...)
		}
		if err := WriteData(path, sp.Mode, recs); err != nil {
			return total, err
		}
		total += len(recs)
		made++
		el := time.Since(start)
		eta := time.Duration(float64(el) / float64(made) * float64(todo-made))
		log.Info("self-play chunk done", "mode", sp.Mode, "chunk", c, "positions", len(recs),
			"done", made, "of", todo, "elapsed", el.Round(time.Second), "eta", eta.Round(time.Second))
	}
	return total, nil
}

// Game plays one self-play game from a random start and returns its
// labelled positions (the side to move has a legal move in each).
func (sp *SelfPlay) Game(ctx context.Context, eng *search.Engine, rng *rand.Rand) ([]Record, error) {
	pos, _ := othello.RandomOpening(sp.Mode, rng)
	type seen struct {
		rec   Record
		turn  othello.Color
		exact bool
	}
	var hist []seen
	blackScore, solved := 0, false
	for ply := 0; !pos.GameOver(); ply++ {
		legal := pos.Legal()
		if legal.IsZero() {
			pos, _ = pos.Play(othello.Pass)
			continue
		}
		s := seen{rec: record(pos), turn: pos.Turn}
		empties := pos.Empties().Count()
		var mv int
		switch {
		case empties <= sp.Exact:
			res, err := eng.Search(ctx, pos, search.Limits{Exact: true})
			if err != nil {
				return nil, err
			}
			mv = res.Move
			s.rec.Score = int8(res.Score)
			s.exact = true
			if !solved {
				solved = true
				blackScore = int(res.Score)
				if pos.Turn == othello.White {
					blackScore = -blackScore
				}
			}
		case ply < sp.RandomPlies && rng.Float64() < sp.RandomRate:
			sq := legal.Squares()
			mv = sq[rng.IntN(len(sq))]
		default:
			res, err := eng.Search(ctx, pos, search.Limits{Depth: sp.Depth})
			if err != nil {
				return nil, err
			}
			mv = res.Move
		}
		hist = append(hist, s)
		next, err := pos.Play(mv)
		if err != nil {
			return nil, fmt.Errorf("engine move: %w", err)
		}
		pos = next
	}
	if !solved {
		blackScore = FinalScore(pos)
	}
	out := make([]Record, len(hist))
	for i, h := range hist {
		out[i] = h.rec
		if !h.exact {
			out[i].Score = int8(blackScore)
			if h.turn == othello.White {
				out[i].Score = int8(-blackScore)
			}
		}
	}
	return out, nil
}

// record is pos as a Record for its side to move, without the label.
func record(pos othello.Position) Record {
	r := Record{P: pos.Discs(pos.Turn), O: pos.Discs(pos.Turn.Opponent()), PLeft: capsNone, OLeft: capsNone}
	if pos.Mode == othello.Reversi {
		r.PLeft = uint8(othello.ReversiCap - pos.Placed.Of(pos.Turn))
		r.OLeft = uint8(othello.ReversiCap - pos.Placed.Of(pos.Turn.Opponent()))
	}
	return r
}

// FinalScore is black's final disc difference of a finished game under the
// mode's scoring (fewer discs win in anti; empties count for nobody).
func FinalScore(pos othello.Position) int {
	b, w := pos.Count()
	if pos.Mode.LessWins() {
		return w - b
	}
	return b - w
}
