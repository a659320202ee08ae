package egaroucid

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/internal/adapt"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/proc"
)

// DefaultMargin is the time kept under the budget for Egaroucid to print
// its answer after its own think time.
const DefaultMargin = 300 * time.Millisecond

// Options configure an [Engine].
type Options struct {
	// Path is the Egaroucid for Console binary (--egaroucid).
	Path string
	// Threads, when positive, is passed as -t.
	Threads int
	// ExtraArgs are added to the command line (after -quiet -noboard).
	ExtraArgs []string
	// Margin is kept under the budget (zero: DefaultMargin).
	Margin time.Duration
	// Name is the engine's name; empty means "Egaroucid".
	Name string
	// Logger receives Egaroucid's stderr and the adapter's messages.
	Logger *slog.Logger
	// StderrLevel is the log level of Egaroucid's stderr lines (it writes
	// its time limit there at every move; Debug keeps that quiet).
	StderrLevel slog.Level
}

// Engine is an Egaroucid for Console process for one leg. It is safe for
// concurrent use; requests are answered one at a time.
type Engine struct {
	opts Options
	bin  string
	log  *slog.Logger
	slot *proc.Slot
}

// ErrClosed is returned by Move after Close.
var ErrClosed = proc.ErrClosed

// ErrMode is returned for a position that is not std.
var ErrMode = errors.New("egaroucid plays std only")

var errEOF = errors.New("egaroucid exited")

// New checks the binary and returns an engine for one leg; Egaroucid starts
// at the first move.
func New(opts Options) (*Engine, error) {
	if opts.Path == "" {
		return nil, errors.New("egaroucid: no binary given")
	}
	bin, err := exec.LookPath(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("egaroucid binary: %w", err)
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return nil, fmt.Errorf("egaroucid binary: %w", err)
	}
	if opts.Margin <= 0 {
		opts.Margin = DefaultMargin
	}
	if opts.Name == "" {
		opts.Name = "Egaroucid"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("adapter", "egaroucid")
	if fi, err := os.Stat(filepath.Join(filepath.Dir(bin), "resources")); err != nil || !fi.IsDir() {
		log.Warn("no resources/ folder beside the Egaroucid binary; it may fail to start", "dir", filepath.Dir(bin))
	}
	e := &Engine{opts: opts, bin: bin, log: log}
	e.slot = proc.NewSlot(e.startProcess)
	return e, nil
}

// Name returns the engine's name.
func (e *Engine) Name() string { return e.opts.Name }

// Supports reports true for std only.
func (e *Engine) Supports(mode othello.Mode) bool { return mode == othello.Std }

// Stats returns how many times the process was started and how many times
// it ended or was killed without being asked to.
func (e *Engine) Stats() (starts, crashes int) { return e.slot.Stats() }

// Start starts the process now, if it is not running, instead of at the
// next move, so that its start-up time is not taken from a move's budget.
// It does not wait for the engine to be ready.
func (e *Engine) Start() error { return e.slot.Start() }

// Close stops the process (quit, SIGTERM, SIGKILL to its group).
func (e *Engine) Close() error { return e.slot.Close() }

// SettimeSeconds returns the clock, in whole seconds (at least 1), given to
// Egaroucid with settime for req: the mover's clock less adapt.Reserve,
// lowered until Egaroucid's own allotment of it for this move (as
// [Allotment] models it) fits in the budget less margin. Egaroucid can put
// most of its clock into one endgame move, so its real clock would often
// get it killed at the cap; a smaller one keeps it within the cap.
func SettimeSeconds(req engines.Request, margin time.Duration) int {
	budget := adapt.Budget(req)
	remaining := req.Remaining
	if remaining <= 0 {
		remaining = budget
	}
	ceiling := budget - margin
	empties := adapt.Empties(req)
	for s := int((remaining - adapt.Reserve(remaining)) / time.Second); s > 1; s-- {
		if Allotment(time.Duration(s)*time.Second, empties) <= ceiling {
			return s
		}
	}
	return 1
}

// Move asks Egaroucid for a move in req.Position (std only).
func (e *Engine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	start := time.Now()
	pos := req.Position
	if pos.Mode != othello.Std {
		return engines.Result{}, fmt.Errorf("egaroucid move: %w (got %s)", ErrMode, pos.Mode)
	}
	if m, ok, err := adapt.Forced(pos); err != nil {
		return engines.Result{}, fmt.Errorf("egaroucid move: %w", err)
	} else if ok {
		return engines.Result{Move: m, Elapsed: time.Since(start)}, nil
	}
	board, err := BoardString(pos)
	if err != nil {
		return engines.Result{}, err
	}
	side := "X"
	if pos.Turn == othello.White {
		side = "O"
	}
	// settime after setboard: setboard resets the clock once settime has
	// been used.
	cmds := []string{
		"setboard " + board,
		"settime " + side + " " + strconv.Itoa(SettimeSeconds(req, e.opts.Margin)),
		"go",
	}
	wctx, cancel, err := adapt.Start(ctx, start, req)
	if err != nil {
		return engines.Result{}, fmt.Errorf("egaroucid move: %w", err)
	}
	defer cancel()
	if !e.slot.Acquire(wctx) {
		return engines.Result{}, fmt.Errorf("egaroucid move: waiting for the engine: %w", adapt.WaitErr(ctx, wctx))
	}
	defer e.slot.Release()
	lastErr := errEOF
	for attempt := 0; attempt < 2 && wctx.Err() == nil; attempt++ {
		p, _, err := e.slot.Process()
		if err != nil {
			return engines.Result{}, fmt.Errorf("egaroucid move: %w", err)
		}
		e.drain(p)
		sent := time.Now()
		if err := sendAll(p, cmds); err != nil {
			lastErr = err
			e.slot.Retire(p, true)
			continue
		}
		a, err := e.await(wctx, p)
		switch {
		case err == nil:
			if err := adapt.Check(pos, a.Move); err != nil {
				return engines.Result{}, fmt.Errorf("egaroucid move: %w", err)
			}
			return engines.Result{Move: a.Move, Score: a.Value, Elapsed: time.Since(sent)}, nil
		case errors.Is(err, errEOF):
			lastErr = err
			e.slot.Retire(p, true)
		default:
			// At the cap: kill it; the next move starts a new one.
			e.log.Warn("egaroucid gave no answer in time; killing it", "budget", adapt.Budget(req))
			e.slot.Retire(p, true)
			return engines.Result{}, fmt.Errorf("egaroucid move: %w", adapt.WaitErr(ctx, wctx))
		}
	}
	if wctx.Err() != nil {
		return engines.Result{}, fmt.Errorf("egaroucid move: %w (%v)", adapt.WaitErr(ctx, wctx), lastErr)
	}
	return engines.Result{}, fmt.Errorf("egaroucid move: %w", lastErr)
}

func sendAll(p *proc.Process, cmds []string) error {
	for _, c := range cmds {
		if err := p.Send(c); err != nil {
			return fmt.Errorf("%w: %v", errEOF, err)
		}
	}
	return nil
}

// startProcess starts Egaroucid for the slot, in its own folder so that
// it finds resources/.
func (e *Engine) startProcess() (*proc.Process, error) {
	args := []string{"-quiet", "-noboard"}
	if e.opts.Threads > 0 {
		args = append(args, "-t", strconv.Itoa(e.opts.Threads))
	}
	args = append(args, e.opts.ExtraArgs...)
	return proc.Start(proc.Config{
		Path:        e.bin,
		Args:        args,
		Dir:         filepath.Dir(e.bin),
		Name:        e.opts.Name,
		Logger:      e.log,
		StderrLevel: e.opts.StderrLevel,
		QuitLine:    "quit",
	})
}

// drain discards lines that arrived between moves.
func (e *Engine) drain(p *proc.Process) {
	for {
		select {
		case l, ok := <-p.Lines():
			if !ok {
				return
			}
			e.log.Debug("egaroucid line between moves skipped", "line", l)
		default:
			return
		}
	}
}

// await reads lines until an answer, the end of stdout or the end of ctx.
func (e *Engine) await(ctx context.Context, p *proc.Process) (Answer, error) {
	for {
		select {
		case <-ctx.Done():
			return Answer{}, ctx.Err()
		case l, ok := <-p.Lines():
			if !ok {
				select {
				case <-p.Done():
					return Answer{}, fmt.Errorf("%w (%v)", errEOF, p.ExitErr())
				case <-ctx.Done():
					return Answer{}, ctx.Err()
				}
			}
			if a, ok := ParseAnswer(l); ok {
				return a, nil
			}
			if s := StripPrompt(l); s != "" {
				e.log.Debug("egaroucid line skipped", "line", s)
			}
		}
	}
}
