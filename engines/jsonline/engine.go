package jsonline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/internal/adapt"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/proc"
	"flipbot.dev/flipbot/internal/text"
)

// Options configure an [Engine].
type Options struct {
	// Command is the engine's command line, split like a shell splits
	// words and quotes (no shell is run; see proc.SplitCommand).
	Command string
	// Dir is the engine's working directory; empty means ours.
	Dir string
	// Name is returned by Name; empty means the program's base name.
	Name string
	// Modes are the modes the engine plays; nil means all five.
	Modes []othello.Mode
	// Logger receives the engine's stderr and the adapter's messages.
	Logger *slog.Logger
	// StderrLevel is the log level of the engine's stderr lines.
	StderrLevel slog.Level
}

// Engine is a JSON-line engine process for one match. It is safe for
// concurrent use; requests are answered one at a time.
type Engine struct {
	opts Options
	argv []string
	log  *slog.Logger
	slot *proc.Slot
}

// ErrClosed is returned by Move after Close.
var ErrClosed = proc.ErrClosed

// errEOF reports that the engine's stdout ended before an answer.
var errEOF = errors.New("engine exited before answering")

// New checks the command and returns an engine for one match. The process
// starts at the first Move.
func New(opts Options) (*Engine, error) {
	argv, err := proc.SplitCommand(opts.Command)
	if err != nil {
		return nil, fmt.Errorf("jsonline engine: %w", err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Name == "" {
		opts.Name = programName(argv)
	}
	e := &Engine{opts: opts, argv: argv, log: log.With("adapter", "jsonline")}
	e.slot = proc.NewSlot(e.startProcess)
	return e, nil
}

// Name returns the configured name or the program's base name.
func (e *Engine) Name() string { return e.opts.Name }

// Supports reports whether the engine was configured for mode.
func (e *Engine) Supports(mode othello.Mode) bool {
	return e.opts.Modes == nil || slices.Contains(e.opts.Modes, mode)
}

// Stats returns how many times the process was started and how many times
// it ended without being asked to.
func (e *Engine) Stats() (starts, crashes int) { return e.slot.Stats() }

// Start starts the process now, if it is not running, instead of at the
// next move, so that its start-up time is not taken from a move's budget.
// It does not wait for the engine to be ready.
func (e *Engine) Start() error { return e.slot.Start() }

// Close stops the process (end of stdin, SIGTERM, SIGKILL to its group).
func (e *Engine) Close() error { return e.slot.Close() }

// Move sends the position to the engine and returns its answer, checked
// against the rules. It keeps the spec's --engine contract:
//
//   - every request made through the API (req.Wire set) reaches the engine,
//     forced ones included: with one legal move or none the engine still
//     sees the position, and whatever it answers, the forced move is
//     returned (the caller may send that without waiting for Move);
//   - remaining_ms and budget_ms are computed when the line is written to
//     the engine's stdin (Request.ClockAt), not when the request was made:
//     the other leg of the match may hold the engine meanwhile (a clock
//     without its At was read when Move was called, and goes on from then);
//   - the answer is awaited exactly budget_ms from that write, then the
//     process is killed (a late answer must never be read as the next
//     move's) and restarted at the next move.
//
// Waiting for the engine while the other leg's request holds it is bounded
// by the mover's clock less the spec's margin.
func (e *Engine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	start := time.Now()
	pos := req.Position
	forced, isForced, err := adapt.Forced(pos)
	if err != nil {
		return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
	}
	if isForced && req.Wire == nil {
		// Off the API (a tool's request) there is no contract to keep.
		return engines.Result{Move: forced, Elapsed: time.Since(start)}, nil
	}
	if err := ctx.Err(); err != nil {
		return engines.Result{}, fmt.Errorf("jsonline move: cancelled: %w", err)
	}
	if req.At.IsZero() && req.Remaining != 0 {
		// A clock without its instant was read now (engines.Request's At):
		// the wait for the other leg's answer is taken off it too.
		req.At = start
	}
	last := e.lastWrite(req, start)
	if _, budget := clockAt(req, start); !start.Before(last) || budget <= 0 {
		return engines.Result{}, fmt.Errorf("jsonline move: %w: no time left to ask (remaining %v)", adapt.ErrTimeout, req.Remaining)
	}
	sctx, cancel := context.WithDeadline(ctx, last)
	defer cancel()
	if !e.slot.Acquire(sctx) {
		return engines.Result{}, fmt.Errorf("jsonline move: waiting for the engine: %w", adapt.WaitErr(ctx, sctx))
	}
	defer e.slot.Release()
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		if _, budget := clockAt(req, time.Now()); budget <= 0 {
			return engines.Result{}, fmt.Errorf("jsonline move: %w: budget_ms is 0 after waiting for the engine", adapt.ErrTimeout)
		}
		p, _, err := e.slot.Process()
		if err != nil {
			return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
		}
		e.drain(p)
		line, budget, err := e.request(req, time.Now())
		if err != nil {
			return engines.Result{}, err
		}
		sent := time.Now()
		if err := p.Send(string(line)); err != nil {
			e.slot.Retire(p, true)
			lastErr = err
			if errors.Is(err, proc.ErrExited) && ctx.Err() == nil {
				continue
			}
			return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
		}
		wctx, wcancel := context.WithDeadline(ctx, sent.Add(budget))
		m, err := e.await(wctx, p, pos.Size())
		late := wctx.Err() != nil
		wcancel()
		switch {
		case err == nil || (isForced && !errors.Is(err, errEOF) && !late):
			if isForced {
				if err != nil || m != forced {
					e.log.Debug("engine answered a forced move otherwise; the forced move is played", "answer", m, "err", err)
				}
				return engines.Result{Move: forced, Elapsed: time.Since(sent)}, nil
			}
			if err := adapt.Check(pos, m); err != nil {
				return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
			}
			return engines.Result{Move: m, Elapsed: time.Since(sent)}, nil
		case errors.Is(err, errEOF):
			e.slot.Retire(p, true)
			lastErr = err
			if ctx.Err() == nil && time.Now().Before(e.lastWrite(req, start)) {
				continue
			}
			return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
		case late:
			// A late answer must never be read as the next move's.
			e.log.Warn("engine gave no answer within budget_ms; killing it", "budget_ms", budget.Milliseconds())
			e.slot.Retire(p, false)
			var sk *skippedLines
			if errors.As(err, &sk) {
				return engines.Result{}, fmt.Errorf("jsonline move: %w (%s)", adapt.WaitErr(ctx, wctx), sk.note())
			}
			return engines.Result{}, fmt.Errorf("jsonline move: %w", adapt.WaitErr(ctx, wctx))
		default:
			return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
		}
	}
	return engines.Result{}, fmt.Errorf("jsonline move: %w", lastErr)
}

// lastWrite is the latest moment the request may still be written: when the
// mover's clock is down to the spec's margin (or the default budget after
// start, for a request without a clock).
func (e *Engine) lastWrite(req engines.Request, start time.Time) time.Time {
	if req.Remaining == 0 && req.At.IsZero() {
		return start.Add(adapt.DefaultBudget)
	}
	return req.At.Add(req.Remaining - engines.SpecMargin)
}

// clockAt is req.ClockAt, but for a request without a clock (made off the
// API) the budget is the connector's default cap.
func clockAt(req engines.Request, now time.Time) (remaining, budget time.Duration) {
	if req.Remaining == 0 && req.At.IsZero() {
		return 0, adapt.DefaultBudget
	}
	return req.ClockAt(now)
}

// request returns the request line for req as written at now, and its
// budget_ms: remaining_ms and budget_ms are the clock at that instant.
func (e *Engine) request(req engines.Request, now time.Time) ([]byte, time.Duration, error) {
	var wire othello.EngineRequest
	if req.Wire != nil {
		wire = *req.Wire
	} else {
		wire = othello.NewEngineRequest(req.Position)
	}
	remaining, budget := clockAt(req, now)
	wire.RemainingMS, wire.BudgetMS = remaining.Milliseconds(), budget.Milliseconds()
	b, err := json.Marshal(wire)
	if err != nil {
		return nil, 0, fmt.Errorf("jsonline move: encode request: %w", err)
	}
	return b, budget, nil
}

// startProcess starts the engine's process for the slot.
func (e *Engine) startProcess() (*proc.Process, error) {
	return proc.Start(proc.Config{
		Path:        e.argv[0],
		Args:        e.argv[1:],
		Dir:         e.opts.Dir,
		Name:        e.opts.Name,
		Logger:      e.log,
		StderrLevel: e.opts.StderrLevel,
	})
}

// maxLogLine bounds an engine line quoted in a log record (characters).
const maxLogLine = 200

// drain discards lines that arrived between requests.
func (e *Engine) drain(p *proc.Process) {
	for {
		select {
		case l, ok := <-p.Lines():
			if !ok {
				return
			}
			e.log.Debug("engine line between requests skipped", "line", text.Elide(l, maxLogLine))
		default:
			return
		}
	}
}

// await reads lines until an answer, the end of stdout or the end of ctx.
func (e *Engine) await(ctx context.Context, p *proc.Process, size int) (int, error) {
	skipped, last := 0, ""
	for {
		select {
		case <-ctx.Done():
			if skipped > 0 {
				// What it printed instead of an answer says why.
				return 0, &skippedLines{err: ctx.Err(), n: skipped, last: last}
			}
			return 0, ctx.Err()
		case l, ok := <-p.Lines():
			if !ok {
				select {
				case <-p.Done():
					return 0, fmt.Errorf("%w (%v)", errEOF, p.ExitErr())
				case <-ctx.Done():
					return 0, ctx.Err()
				}
			}
			m, isAnswer, err := ParseAnswer([]byte(l), size)
			if !isAnswer {
				e.log.Debug("engine line skipped", "line", text.Elide(l, maxLogLine))
				skipped, last = skipped+1, l
				continue
			}
			return m, err
		}
	}
}

// skippedLines is await's error when the wait ended after lines that are
// not an answer: how many, and the last one.
type skippedLines struct {
	err  error
	n    int
	last string
}

func (s *skippedLines) Error() string { return s.err.Error() + " (" + s.note() + ")" }
func (s *skippedLines) Unwrap() error { return s.err }

// note says what the engine printed instead of an answer.
func (s *skippedLines) note() string {
	lines := "lines that are not an answer"
	if s.n == 1 {
		lines = "a line that is not an answer"
	}
	if s.n > 1 {
		lines = strconv.Itoa(s.n) + " " + lines
	}
	return fmt.Sprintf("it printed %s, the last %q", lines, text.Elide(s.last, maxLogLine))
}

// interpreters are programs whose first argument names the engine.
var interpreters = []string{"python", "python3", "py", "pypy", "pypy3", "node", "deno", "ruby", "perl", "sh", "bash", "java", "dotnet", "env"}

// programName returns the base name of the program, or of the script when
// the program is an interpreter: "my_adapter.py" for
// "python3 -u my_adapter.py".
func programName(argv []string) string {
	name := filepath.Base(argv[0])
	if !slices.Contains(interpreters, name) {
		return name
	}
	for _, a := range argv[1:] {
		if a != "" && a[0] != '-' {
			return filepath.Base(a)
		}
	}
	return name
}
