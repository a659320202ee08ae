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

	"flipbot.dev/flipbot/bot"
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
	clocks := newLegClocks()
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
		start := time.Now()
		think := clocks.plan(req, start)
		mv := answerRequest(context.Background(), eng, req, think, stderr)
		clocks.answered(req, time.Since(start), time.Now())
		if _, err := fmt.Fprintf(stdout, "{\"move\":%d}\n", mv); err != nil {
			fmt.Fprintf(stderr, "flipengine engine: write stdout: %v\n", err)
			return 1
		}
	}
}

// answerRequest returns the move for one request: the engine's choice when
// the request is a valid position, else the first of its legal_moves.
func answerRequest(ctx context.Context, eng engines.Engine, req othello.EngineRequest, think time.Duration, stderr io.Writer) int {
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
		Budget:    think,
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

// legClocks plans each request's think time as the bot plans its own
// engines' (bot.Plan), from what the clock costs besides the think: the fall
// of a leg's remaining_ms from one of its requests to the next, less the
// engine's think in between, is the time its turns spend outside the engine
// — the state's delivery (up to a poll's second without a stream), the
// connector, and the other leg's request when both legs of a match share
// this process. budget_ms is only the most the connector waits: the cap.
type legClocks struct {
	over *bot.OverheadMeter
	legs map[[2]int64]legClock // (match_id, leg) → its last request
}

// legClock is one leg's last request.
type legClock struct {
	remainingMS int64
	think       time.Duration // from reading the request to writing the answer
	at          time.Time     // when the answer was written
}

// legWindow is how long a leg's last request counts: a leg not heard of
// for longer has ended.
const legWindow = 2 * time.Minute

func newLegClocks() *legClocks {
	return &legClocks{over: bot.NewOverheadMeter(), legs: map[[2]int64]legClock{}}
}

// plan returns the think time for req, read at now: never zero (the engine
// always answers), never past budget_ms.
func (c *legClocks) plan(req othello.EngineRequest, now time.Time) time.Duration {
	k := [2]int64{req.MatchID, int64(req.Leg)}
	if prev, ok := c.legs[k]; ok && now.Sub(prev.at) < legWindow {
		if d := time.Duration(prev.remainingMS-req.RemainingMS)*time.Millisecond - prev.think; d >= 0 {
			c.over.Observe(d)
		}
	}
	left := 1
	if pos, err := req.Position(); err == nil {
		left = bot.MovesLeft(&pos, nil)
	}
	remaining := time.Duration(req.RemainingMS) * time.Millisecond
	think := bot.Plan(remaining, time.Duration(req.BudgetMS)*time.Millisecond, c.over.Estimate(), left)
	return max(think, time.Millisecond)
}

// answered notes how long req took, answered at now, and forgets the legs
// not heard of for legWindow, so the map holds a few entries however long
// the process runs.
func (c *legClocks) answered(req othello.EngineRequest, think time.Duration, now time.Time) {
	for k, l := range c.legs {
		if now.Sub(l.at) > legWindow {
			delete(c.legs, k)
		}
	}
	c.legs[[2]int64{req.MatchID, int64(req.Leg)}] = legClock{remainingMS: req.RemainingMS, think: think, at: now}
}
