package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// engineFlags are the options shared by the commands that search.
type engineFlags struct {
	threads, hashMB int
	verbose         bool
	eval, weights   string
}

func (f *engineFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.threads, "threads", 0, "search threads (default: the number of cores)")
	fs.IntVar(&f.hashMB, "hash", 64, "transposition table size in MiB")
	fs.BoolVar(&f.verbose, "v", false, "log each search on stderr")
	fs.StringVar(&f.eval, "eval", eval.NameBest, "evaluation: best (per mode the one measured stronger: today the trained one in every mode), pattern (trained in every mode) or baseline (hand-made)")
	fs.StringVar(&f.weights, "weights", "", "pattern weights `FILE` for its mode, instead of -eval (other modes: baseline)")
}

// engine builds the engine the flags ask for; it fails when the
// evaluation's weights do not load.
func (f *engineFlags) engine(stderr io.Writer) (*search.Engine, error) {
	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ev, err := eval.ByName(f.eval)
	if f.weights != "" {
		ev, err = loadEvals(f.weights)
	}
	if err != nil {
		return nil, err
	}
	return search.New(search.Options{Threads: f.threads, HashMB: f.hashMB, Logger: log, Eval8: ev.Eval8, Eval10: ev.Eval10}), nil
}

// runEngine speaks the connector's --engine protocol: one JSON request per
// line on stdin, one {"move":N} line per request on stdout; everything else
// goes to stderr. A line that is not a request is reported on stderr and
// skipped; a readable request that the rules reject is still answered with
// one of its own legal_moves (or a pass when it lists none).
func runEngine(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("engine", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef engineFlags
	ef.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	eng, err := ef.engine(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine engine: %v\n", err)
		return 1
	}
	defer eng.Close()
	legs := newLegsSeen()
	lr := newLineReader(stdin)
	for {
		line, err := lr.next()
		if errors.Is(err, errLineTooLong) {
			fmt.Fprintf(stderr, "flipengine engine: request line over %d bytes skipped\n", maxLine)
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintf(stderr, "flipengine engine: read stdin: %v\n", err)
			return 1
		}
		if len(line) == 0 {
			continue
		}
		req, err := othello.ParseEngineRequest(line)
		if err != nil {
			fmt.Fprintf(stderr, "flipengine engine: %v\n", err)
			continue
		}
		// One process serves both legs of a match, one request at a time:
		// while it thinks for one leg, the other's clock runs too, so each
		// leg plans with its share of the clock.
		if n := legs.see(req.MatchID, req.Leg, time.Now()); n > 1 {
			req.RemainingMS /= int64(n)
		}
		mv := answerRequest(context.Background(), eng, req, stderr)
		if _, err := fmt.Fprintf(stdout, "{\"move\":%d}\n", mv); err != nil {
			fmt.Fprintf(stderr, "flipengine engine: write stdout: %v\n", err)
			return 1
		}
	}
}

// answerRequest returns the move for one request: the engine's choice when
// the request is a valid position, else the first of its legal_moves.
func answerRequest(ctx context.Context, eng engines.Engine, req othello.EngineRequest, stderr io.Writer) int {
	fallback := othello.Pass
	if len(req.LegalMoves) > 0 {
		fallback = req.LegalMoves[0]
	}
	pos, err := req.Position()
	if err != nil {
		fmt.Fprintf(stderr, "flipengine engine: %v; playing %d from legal_moves\n", err, fallback)
		return fallback
	}
	legal := pos.LegalMoves()
	if req.LegalMoves != nil && !slices.Equal(legal, req.LegalMoves) {
		fmt.Fprintf(stderr, "flipengine engine: legal_moves %v differ from the rules' %v; the request's win\n", req.LegalMoves, legal)
		if len(req.LegalMoves) == 0 {
			return othello.Pass
		}
	}
	res, err := eng.Move(ctx, engines.Request{
		Position:  pos,
		Remaining: time.Duration(req.RemainingMS) * time.Millisecond,
		Budget:    time.Duration(req.BudgetMS) * time.Millisecond,
		Wire:      &req,
	})
	if err != nil {
		fmt.Fprintf(stderr, "flipengine engine: search: %v; playing %d\n", err, fallback)
		return fallback
	}
	if req.LegalMoves != nil && !slices.Contains(req.LegalMoves, res.Move) {
		return fallback
	}
	return res.Move
}

// legsSeen remembers when each leg of the recent matches last asked for a
// move, to tell how many legs share the engine's process.
type legsSeen struct {
	at map[[2]int64]time.Time // (match_id, leg) → last request
}

// legWindow is how long a leg counts as in play after its last request:
// longer than the opponent's longest think between two of its moves.
const legWindow = 20 * time.Second

func newLegsSeen() *legsSeen { return &legsSeen{at: map[[2]int64]time.Time{}} }

// see notes a request of (match, leg) at now and returns how many legs of
// that match are in play (1 or 2). Entries older than the window go, so
// the map holds a few entries whatever the run's length.
func (l *legsSeen) see(match int64, leg int, now time.Time) int {
	for k, t := range l.at {
		if now.Sub(t) > legWindow {
			delete(l.at, k)
		}
	}
	l.at[[2]int64{match, int64(leg)}] = now
	n := 0
	for k := range l.at {
		if k[0] == match {
			n++
		}
	}
	return n
}
