package jsonline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/internal/adapt"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/proc"
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
// against the rules.
func (e *Engine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	start := time.Now()
	pos := req.Position
	if m, ok, err := adapt.Forced(pos); err != nil {
		return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
	} else if ok {
		return engines.Result{Move: m, Elapsed: time.Since(start)}, nil
	}
	wctx, cancel, err := adapt.Start(ctx, start, req)
	if err != nil {
		return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
	}
	defer cancel()
	if !e.slot.Acquire(wctx) {
		return engines.Result{}, fmt.Errorf("jsonline move: waiting for the engine: %w", adapt.WaitErr(ctx, wctx))
	}
	defer e.slot.Release()
	line, err := e.request(req)
	if err != nil {
		return engines.Result{}, err
	}
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		p, _, err := e.slot.Process()
		if err != nil {
			return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
		}
		e.drain(p)
		sent := time.Now()
		if err := p.Send(string(line)); err != nil {
			e.slot.Retire(p, true)
			lastErr = err
			if errors.Is(err, proc.ErrExited) && wctx.Err() == nil {
				continue
			}
			return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
		}
		m, err := e.await(wctx, p, pos.Size())
		switch {
		case err == nil:
			if err := adapt.Check(pos, m); err != nil {
				return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
			}
			return engines.Result{Move: m, Elapsed: time.Since(sent)}, nil
		case errors.Is(err, errEOF):
			e.slot.Retire(p, true)
			lastErr = err
			if wctx.Err() == nil {
				continue
			}
			return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
		case wctx.Err() != nil:
			// A late answer must never be read as the next move's.
			e.log.Warn("engine gave no answer in time; killing it", "budget", adapt.Budget(req))
			e.slot.Retire(p, false)
			return engines.Result{}, fmt.Errorf("jsonline move: %w", adapt.WaitErr(ctx, wctx))
		default:
			return engines.Result{}, fmt.Errorf("jsonline move: %w", err)
		}
	}
	return engines.Result{}, fmt.Errorf("jsonline move: %w", lastErr)
}

// request returns the request line for req.
func (e *Engine) request(req engines.Request) ([]byte, error) {
	var wire othello.EngineRequest
	if req.Wire != nil {
		wire = *req.Wire
	} else {
		wire = othello.NewEngineRequest(req.Position)
		wire.RemainingMS = req.Remaining.Milliseconds()
		wire.BudgetMS = adapt.Budget(req).Milliseconds()
	}
	b, err := json.Marshal(wire)
	if err != nil {
		return nil, fmt.Errorf("jsonline move: encode request: %w", err)
	}
	return b, nil
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

// drain discards lines that arrived between requests.
func (e *Engine) drain(p *proc.Process) {
	for {
		select {
		case l, ok := <-p.Lines():
			if !ok {
				return
			}
			e.log.Debug("engine line between requests skipped", "line", clip(l))
		default:
			return
		}
	}
}

// await reads lines until an answer, the end of stdout or the end of ctx.
func (e *Engine) await(ctx context.Context, p *proc.Process, size int) (int, error) {
	for {
		select {
		case <-ctx.Done():
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
				e.log.Debug("engine line skipped", "line", clip(l))
				continue
			}
			return m, err
		}
	}
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
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
