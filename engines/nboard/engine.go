package nboard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"flipbot.dev/flipbot/engines"
	ggfrec "flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/engines/internal/adapt"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/proc"
	"flipbot.dev/flipbot/internal/text"
)

// DefaultVersion is the protocol version sent by `nboard N`: 1, the only
// one Edax 4.6 accepts (it answers no ping after `nboard 2`), so that
// `--nboard "edax -nboard"` works.
const DefaultVersion = 1

// DefaultSyncTimeout bounds the wait for the pong of a running engine
// before it is killed and started again.
const DefaultSyncTimeout = 2 * time.Second

// DefaultStopMargin is the default of Options.StopMargin.
const DefaultStopMargin = 200 * time.Millisecond

// Options configure an [Engine].
type Options struct {
	// Command is the engine's command line (the --nboard option), split
	// like a shell splits words and quotes. It is used when Path is empty.
	Command string
	// Path and Args give the program and its arguments directly.
	Path string
	Args []string
	// Dir is the engine's working directory; empty means ours.
	Dir string
	// Name is returned by Name; empty means the name the engine reports
	// with `set myname`, or the program's base name.
	Name string
	// Version is sent as `nboard <Version>` (zero: DefaultVersion).
	Version int
	// Depth, when positive, is sent as `set depth <Depth>` at start.
	Depth int
	// Think, when set, gives the time after which the search of a request
	// is stopped with a ping; the engine then answers its best move so
	// far. Without it the engine decides (by its depth). Either way a ping
	// is sent StopMargin before the budget ends, and Move fails only if no
	// answer has come by then.
	Think func(engines.Request) time.Duration
	// StopMargin is kept between the last stop ping and the end of the
	// budget, for the engine to answer (zero: DefaultStopMargin).
	StopMargin time.Duration
	// SyncTimeout bounds the wait for the pong that starts each move
	// (zero: DefaultSyncTimeout).
	SyncTimeout time.Duration
	// Startup is the start-up allowance: how long a new process may take
	// to answer its first ping (zero: adapt.DefaultStartup), within the
	// budget. Start starts the process ahead of the first move.
	Startup time.Duration
	// Hint asks for each move with `hint 1` instead of `go` and takes the
	// answer from the `search PV EVAL 0 DEPTH` (or `book …`) line: the
	// move, its eval and the depth searched, which Edax's `go` answer does
	// not carry. A ping stops the search the same way.
	Hint bool
	// Logger receives the engine's stderr and the adapter's messages.
	Logger *slog.Logger
	// StderrLevel is the log level of the engine's stderr lines.
	StderrLevel slog.Level
}

// Engine is an NBoard engine process for one leg. It is safe for
// concurrent use; requests are answered one at a time.
type Engine struct {
	opts Options
	argv []string
	log  *slog.Logger
	slot *proc.Slot
	ping int64 // last ping number sent; used holding the slot's turn
	// ready is the process that has answered a ping, started when the
	// slot's process was started; used holding the turn.
	ready   *proc.Process
	started time.Time

	mu     sync.Mutex // guards myname
	myname string
}

// ErrClosed is returned by Move after Close.
var ErrClosed = proc.ErrClosed

// ErrMode is returned for a position that is not std.
var ErrMode = errors.New("NBoard engines play std only")

var (
	errEOF         = errors.New("engine exited")
	errSyncTimeout = errors.New("engine did not answer ping")
	// errLate wraps adapt.ErrTimeout: no answer within the planned think
	// time and the answer allowance.
	errLate = fmt.Errorf("%w: past the planned think time", adapt.ErrTimeout)
)

// New checks the options and returns an engine for one leg. The process
// starts at the first Move.
func New(opts Options) (*Engine, error) {
	argv := append([]string{opts.Path}, opts.Args...)
	if opts.Path == "" {
		var err error
		if argv, err = proc.SplitCommand(opts.Command); err != nil {
			return nil, fmt.Errorf("nboard engine: %w", err)
		}
	}
	if opts.Version == 0 {
		opts.Version = DefaultVersion
	}
	if opts.StopMargin <= 0 {
		opts.StopMargin = DefaultStopMargin
	}
	if opts.SyncTimeout <= 0 {
		opts.SyncTimeout = DefaultSyncTimeout
	}
	if opts.Startup <= 0 {
		opts.Startup = adapt.DefaultStartup
	}
	if opts.Depth < 0 || opts.Depth > 60 {
		return nil, fmt.Errorf("nboard engine: depth %d outside 0..60", opts.Depth)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &Engine{opts: opts, argv: argv, log: log.With("adapter", "nboard")}
	e.slot = proc.NewSlot(e.startProcess)
	return e, nil
}

// Name returns the configured name, else the name the engine reported,
// else the program's base name.
func (e *Engine) Name() string {
	if e.opts.Name != "" {
		return e.opts.Name
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.myname != "" {
		return e.myname
	}
	return filepath.Base(e.argv[0])
}

// Supports reports true for std only.
func (e *Engine) Supports(mode othello.Mode) bool { return mode == othello.Std }

// Stats returns how many times the process was started and how many times
// it ended or hung without being asked to.
func (e *Engine) Stats() (starts, crashes int) { return e.slot.Stats() }

// Start starts the process now, if it is not running, instead of at the
// next move, so that its start-up time is not taken from a move's budget.
// It does not wait for the engine to be ready.
func (e *Engine) Start() error { return e.slot.Start() }

// Close stops the process (quit, SIGTERM, SIGKILL to its group).
func (e *Engine) Close() error { return e.slot.Close() }

// Move asks the engine for a move in req.Position (std only).
func (e *Engine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	start := time.Now()
	pos := req.Position
	if pos.Mode != othello.Std {
		return engines.Result{}, fmt.Errorf("nboard move: %w (got %s)", ErrMode, pos.Mode)
	}
	if m, ok, err := adapt.Forced(pos); err != nil {
		return engines.Result{}, fmt.Errorf("nboard move: %w", err)
	} else if ok {
		return engines.Result{Move: m, Elapsed: time.Since(start)}, nil
	}
	ggf, err := ggfrec.Format(ggfrec.Game{Start: pos})
	if err != nil {
		return engines.Result{}, fmt.Errorf("nboard move: %w", err)
	}
	wctx, cancel, err := adapt.Start(ctx, start, req)
	if err != nil {
		return engines.Result{}, fmt.Errorf("nboard move: %w", err)
	}
	defer cancel()
	if !e.slot.Acquire(wctx) {
		return engines.Result{}, fmt.Errorf("nboard move: waiting for the engine: %w", adapt.WaitErr(ctx, wctx))
	}
	defer e.slot.Release()
	lastErr := errEOF
	for attempt := 0; attempt < 2 && wctx.Err() == nil; attempt++ {
		p, _, err := e.slot.Process()
		if err != nil {
			return engines.Result{}, fmt.Errorf("nboard move: %w", err)
		}
		// An engine that has never answered a ping may still be loading:
		// it gets the start-up allowance, and this move waits for it
		// until shortly before its budget ends (adapt.ReadyBy).
		fresh := p != e.ready
		wait := e.opts.SyncTimeout
		sctx, scancel := wctx, context.CancelFunc(func() {})
		if fresh {
			wait = e.opts.Startup
			sctx, scancel = context.WithDeadline(wctx, adapt.ReadyBy(start, req))
		}
		err = e.sync(sctx, p, wait)
		scancel()
		if err != nil {
			lastErr = err
			// A fresh engine that is still loading is kept, loading in
			// the background, for a later move; any other that missed
			// its pong (dead, deaf to ping, or loading for longer than
			// adapt.MaxStartup) is replaced.
			if !fresh || errors.Is(err, errEOF) || time.Since(e.started) > adapt.MaxStartup {
				e.slot.Retire(p, true)
				continue
			}
			if ctx.Err() != nil {
				return engines.Result{}, fmt.Errorf("nboard move: %w (%v)", adapt.WaitErr(ctx, wctx), err)
			}
			// The caller plays a fallback for this move and keeps the
			// engine.
			return engines.Result{}, fmt.Errorf("nboard move: engine not ready: %w: %w (started %v ago)",
				engines.ErrNotReady, err, time.Since(e.started).Round(time.Millisecond))
		}
		e.ready = p
		// The think time is planned on what is left of the clock and the
		// budget after any wait for the start-up.
		res, err := e.search(wctx, p, adapt.After(req, time.Since(start)), ggf)
		switch {
		case err == nil:
			if err := adapt.Check(pos, res.Move); err != nil {
				return engines.Result{}, fmt.Errorf("nboard move: %w", err)
			}
			return res, nil
		case errors.Is(err, errEOF):
			lastErr = err
			e.slot.Retire(p, true)
		case wctx.Err() != nil || errors.Is(err, errLate):
			// Stop the search; its late answer comes before the pong
			// that the next move waits for.
			e.ping++
			_ = p.Send("ping " + strconv.FormatInt(e.ping, 10))
			e.log.Warn("engine gave no answer in time; search stopped", "budget", adapt.Budget(req), "err", err)
			if wctx.Err() != nil {
				return engines.Result{}, fmt.Errorf("nboard move: %w", adapt.WaitErr(ctx, wctx))
			}
			return engines.Result{}, fmt.Errorf("nboard move: %w", err)
		default:
			return engines.Result{}, fmt.Errorf("nboard move: %w", err)
		}
	}
	if wctx.Err() != nil {
		return engines.Result{}, fmt.Errorf("nboard move: %w (%v)", adapt.WaitErr(ctx, wctx), lastErr)
	}
	return engines.Result{}, fmt.Errorf("nboard move: %w", lastErr)
}

// startProcess starts the engine for the slot and greets it (nboard V,
// set depth N).
func (e *Engine) startProcess() (*proc.Process, error) {
	name := e.opts.Name
	if name == "" {
		name = filepath.Base(e.argv[0])
	}
	p, err := proc.Start(proc.Config{
		Path:        e.argv[0],
		Args:        e.argv[1:],
		Dir:         e.opts.Dir,
		Name:        name,
		Logger:      e.log,
		StderrLevel: e.opts.StderrLevel,
		QuitLine:    "quit",
	})
	if err != nil {
		return nil, err
	}
	e.started = time.Now()
	hello := []string{"nboard " + strconv.Itoa(e.opts.Version)}
	if e.opts.Depth > 0 {
		hello = append(hello, "set depth "+strconv.Itoa(e.opts.Depth))
	}
	for _, l := range hello {
		if err := p.Send(l); err != nil {
			return p, err // the slot kills it and counts a crash
		}
	}
	return p, nil
}

// sync sends a ping and waits up to maxWait for its pong, skipping every
// line before it (what is left of earlier searches).
func (e *Engine) sync(ctx context.Context, p *proc.Process, maxWait time.Duration) error {
	e.ping++
	n := e.ping
	if err := p.Send("ping " + strconv.FormatInt(n, 10)); err != nil {
		return fmt.Errorf("%w: %v", errEOF, err)
	}
	t := time.NewTimer(maxWait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("no pong %d: %w", n, ctx.Err())
		case <-t.C:
			return fmt.Errorf("%w %d within %v", errSyncTimeout, n, maxWait)
		case s, ok := <-p.Lines():
			if !ok {
				return e.eof(ctx, p)
			}
			l, err := ParseLine(s)
			switch {
			case err != nil:
				e.log.Debug("engine line skipped", "line", text.Elide(s, maxQuoted), "err", err)
			case l.Kind == LinePong && l.N == n:
				return nil
			case l.Kind == LineMyName:
				e.setName(l.Text)
			default:
				e.log.Debug("engine line before pong skipped", "line", text.Elide(s, maxQuoted))
			}
		}
	}
}

// search sends the game and go (or hint 1), and reads the answer.
func (e *Engine) search(ctx context.Context, p *proc.Process, req engines.Request, ggf string) (engines.Result, error) {
	ask := "go"
	if e.opts.Hint {
		ask = "hint 1"
	}
	for _, l := range []string{"set game " + ggf, ask} {
		if err := p.Send(l); err != nil {
			return engines.Result{}, fmt.Errorf("%w: %v", errEOF, err)
		}
	}
	sent := time.Now()
	// The search is stopped with a ping at the think time, and in any case
	// in time to answer within the budget: an engine that answers a ping
	// with its best move so far then still gives one. With a think time
	// the wait ends AnswerAllowance after it, not at the budget.
	d := time.Duration(math.MaxInt64)
	if e.opts.Think != nil {
		think := e.opts.Think(req)
		d = think
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, sent.Add(think+adapt.AnswerAllowance))
		defer cancel()
	}
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl)-e.opts.StopMargin)
	}
	t := time.NewTimer(max(d, 0))
	defer t.Stop()
	resend := func() { t.Reset(max(e.opts.StopMargin/2, 10*time.Millisecond)) }
	var (
		nodes uint64
		depth int
	)
	for {
		select {
		case <-ctx.Done():
			if e.opts.Think != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return engines.Result{}, fmt.Errorf("%w (%v + %v)", errLate, e.opts.Think(req).Round(time.Millisecond), adapt.AnswerAllowance)
			}
			return engines.Result{}, ctx.Err()
		case <-t.C:
			// Ping again until the answer comes: a ping that arrives
			// before the search has started stops nothing.
			resend()
			e.ping++
			if err := p.Send("ping " + strconv.FormatInt(e.ping, 10)); err != nil {
				return engines.Result{}, fmt.Errorf("%w: %v", errEOF, err)
			}
		case s, ok := <-p.Lines():
			if !ok {
				return engines.Result{}, e.eof(ctx, p)
			}
			l, err := ParseLine(s)
			if err != nil {
				if strings.HasPrefix(strings.TrimSpace(s), "===") || e.opts.Hint && isHintLine(s) {
					return engines.Result{}, err
				}
				e.log.Debug("engine line skipped", "line", text.Elide(s, maxQuoted), "err", err)
				continue
			}
			switch l.Kind {
			case LineMove:
				if e.opts.Hint {
					e.log.Debug("engine line skipped", "line", text.Elide(s, maxQuoted))
					continue
				}
				return engines.Result{Move: l.Move, Score: l.Eval, Depth: depth, Nodes: nodes, Elapsed: time.Since(sent)}, nil
			case LineSearch, LineBook:
				if e.opts.Hint {
					return engines.Result{Move: l.Move, Score: l.Eval, Depth: l.Depth, Nodes: nodes, Elapsed: time.Since(sent)}, nil
				}
				depth = l.Depth
			case LineNodeStats:
				nodes = l.Nodes
			case LineMyName:
				e.setName(l.Text)
			}
		}
	}
}

// isHintLine reports a line that starts like an answer to hint.
func isHintLine(s string) bool {
	f := strings.Fields(s)
	return len(f) > 0 && (strings.EqualFold(f[0], "search") || strings.EqualFold(f[0], "book"))
}

// eof waits (within ctx) for the process to be reaped after its stdout
// ended and returns the error to report.
func (e *Engine) eof(ctx context.Context, p *proc.Process) error {
	select {
	case <-p.Done():
		return fmt.Errorf("%w (%v)", errEOF, p.ExitErr())
	case <-ctx.Done():
		return fmt.Errorf("%w (closed its output)", errEOF)
	}
}

func (e *Engine) setName(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(name) > 120 {
		name = name[:120]
	}
	e.myname = name
}
