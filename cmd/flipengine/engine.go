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
	"flipbot.dev/flipbot/engines/timeplan"
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
	// The start-up (the evaluation's weights, the table) delays the first
	// answer as much as a think: it counts as the first request's, never as
	// overhead that every later move would reserve.
	begun, first := time.Now(), true
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
		budget, overhead := clocks.plan(req, start)
		mv := answerRequest(context.Background(), eng, req, budget, overhead, stderr)
		from := start
		if first {
			from, first = begun, false
		}
		clocks.answered(req, time.Since(from), time.Now())
		if _, err := fmt.Fprintf(stdout, "{\"move\":%d}\n", mv); err != nil {
			fmt.Fprintf(stderr, "flipengine engine: write stdout: %v\n", err)
			return 1
		}
	}
}

// answerRequest returns the move for one request: the engine's choice when
// the request is a valid position, else the first of its legal_moves.
func answerRequest(ctx context.Context, eng engines.Engine, req othello.EngineRequest, budget, overhead time.Duration, stderr io.Writer) int {
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
	res, err := eng.Move(ctx, protocolRequest(pos, req, budget, overhead))
	if err != nil {
		fmt.Fprintf(stderr, "flipengine engine: search: %v; playing %d\n", err, fallback)
		return fallback
	}
	if req.LegalMoves != nil && !slices.Contains(req.LegalMoves, res.Move) {
		return fallback
	}
	return res.Move
}

// protocolRequest is the engine request for a request of the protocol
// whose budget legClocks planned (moveloss asks the same).
func protocolRequest(pos othello.Position, req othello.EngineRequest, budget, overhead time.Duration) engines.Request {
	return engines.Request{
		Position:  pos,
		Remaining: time.Duration(req.RemainingMS) * time.Millisecond,
		Budget:    budget,
		Overhead:  overhead,
		Wire:      &req,
	}
}

// legClocks plans each request's budget with the one clock planner
// (engines/timeplan), as the bot plans its own engines', from what the
// clock costs besides the think: the fall of a leg's remaining_ms from one
// of its requests to the next, less the engine's think in between, is the
// time its turns spend outside the engine — the state's delivery (up to a
// poll's second without a stream) and the connector — once the time this
// process spent answering the other legs in between is taken off too.
//
// The connector keeps one engine per match, so both legs share this
// process: a request waits while the other leg's is answered, and that
// wait is the other leg's think, not a cost of every move left (counted as
// overhead, it once made both legs plan nearly nothing: 52–60 % of the clock
// used). A connector that stamps remaining_ms when it writes the line shows
// the wait in the next request's clock, one that stamps it at the turn's
// start in this one's: so the other legs' answers both before the last
// request and since its answer are taken off. The wait is paid once,
// from the remaining clock the next plan reads; and so that it cannot eat
// a leg's clock, no answer is planned longer than the budget the plan
// last gave the match's other leg if heard of within shareWindow (its own plan,
// before this bound: bounds taken from each other would only ever fall),
// nor than half of what that leg's clock would be had it waited since its
// last answer (in the arena one leg waited through two long answers of
// the other and lost on time).
//
// A clock that did not fall by the think (a harness asking position after
// position with the same remaining_ms) cost nothing outside the engine:
// the meter is told 0, so it learns that too instead of keeping its first
// guess. budget_ms is only the most the connector waits: the cap.
type legClocks struct {
	over *bot.OverheadMeter
	legs map[[2]int64]legClock // (match_id, leg) → its last request
	busy time.Duration         // the time spent answering, all legs
	// planned is the plan's budget for the request last planned, others
	// the other legs' answers between its leg's previous answer and it,
	// clock the clock it was planned on.
	planned, others, clock time.Duration
}

// legClock is one leg's last request.
type legClock struct {
	remainingMS int64
	think       time.Duration // from reading the request to writing the answer
	at          time.Time     // when the answer was written
	busyAt      time.Duration // legClocks.busy then
	othersAt    time.Duration // the other legs' answers between the leg's previous answer and this request
	clock       time.Duration // the clock it was planned on: remaining_ms less a stale stamp's wait
	planned     time.Duration // the plan's budget for it, before the other legs' bound
}

// legWindow is how long a leg's last request counts: a leg not heard of
// for longer has ended. shareWindow is how long a leg's last budget
// bounds the other legs' (a leg between two of its turns, its opponent
// thinking).
const (
	legWindow   = 2 * time.Minute
	shareWindow = 20 * time.Second
)

func newLegClocks() *legClocks {
	return &legClocks{over: bot.NewOverheadMeter(), legs: map[[2]int64]legClock{}}
}

// plan returns the budget for req, read at now — never zero (the engine
// always answers), never past budget_ms — and the overhead it was planned
// with.
func (c *legClocks) plan(req othello.EngineRequest, now time.Time) (budget, overhead time.Duration) {
	k := [2]int64{req.MatchID, int64(req.Leg)}
	if prev, ok := c.legs[k]; ok && now.Sub(prev.at) < legWindow {
		c.others = c.busy - prev.busyAt
		c.over.Observe(max(0, time.Duration(prev.remainingMS-req.RemainingMS)*time.Millisecond-prev.think-c.others-prev.othersAt))
	} else {
		c.others = 0
	}
	m := timeplan.Moves{Own: 1, Search: 1}
	if pos, err := req.Position(); err == nil {
		m = timeplan.Count(pos)
	}
	// A connector that stamped remaining_ms before the request waited for
	// this process (the arena's server-side players did until issue 38;
	// the spec's connector stamps it at the write) sends a clock as stale
	// as the other legs' answers since this leg's last: plan on the clock
	// less that wait, which costs a stamp made at the write only a shorter
	// think after a collision.
	remaining := max(time.Duration(req.RemainingMS)*time.Millisecond-c.others, time.Millisecond)
	c.clock = remaining
	overhead = c.over.Estimate()
	// budget_ms is the connector's wait: past it the leg is lost, so the
	// plan's cap keeps the reply's margin back from it.
	wait := time.Duration(req.BudgetMS) * time.Millisecond
	p := timeplan.Plan(m, timeplan.Clock{Remaining: remaining, Cap: max(wait-timeplan.ReplyMargin(wait), time.Millisecond), Overhead: overhead})
	c.planned = p.Limit
	budget = p.Limit
	for ok, l := range c.legs {
		// Only the match's other leg shares the process: the spec's
		// connector starts an engine per match, and flipbot keeps one per
		// leg and gives it the next match's leg when one ends, whose first
		// moves the ended leg's last clock (seconds, at a game's end) once
		// bounded to a fraction of a second for shareWindow.
		if ok == k || ok[0] != k[0] || now.Sub(l.at) >= shareWindow {
			continue
		}
		budget = min(budget, l.planned)
		// The other leg may have been waiting since its last answer (its
		// opponent answering at once): it keeps at least half of that
		// clock.
		if left := l.clock - l.think - now.Sub(l.at); left > 0 {
			budget = min(budget, left/2)
		}
	}
	return max(budget, time.Millisecond), overhead
}

// answered notes how long req (the request last planned) took, answered
// at now, and forgets the legs not heard of for legWindow, so the
// map holds a few entries however long the process runs.
func (c *legClocks) answered(req othello.EngineRequest, think time.Duration, now time.Time) {
	for k, l := range c.legs {
		if now.Sub(l.at) > legWindow {
			delete(c.legs, k)
		}
	}
	c.busy += think
	c.legs[[2]int64{req.MatchID, int64(req.Leg)}] = legClock{remainingMS: req.RemainingMS, think: think, at: now,
		busyAt: c.busy, othersAt: c.others, planned: c.planned, clock: c.clock}
}
