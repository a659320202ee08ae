package external

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/internal/adapt"
	"flipbot.dev/flipbot/engines/othello"
)

// Probe bounds: how long a probe waits for one answer of an engine,
// start-up included. The spec's connector waits 10 s for an --engine move
// by default (budget_ms 10000), and an NBoard program answers a start
// position at once; Edax's first answer took 1.2–2.4 s on the 2-core VM at
// load 20–29; Egaroucid for Console's 5.3 s idle and 13–27 s at load 19–29
// (it loads its evaluation and writes its table first;
// docs/measurements/2026-12-02-edax-egaroucid-memory-and-start-up.md,
// 2026-12-04-egaroucid-start-up-cpu.md).
const (
	DefaultProbeTimeout          = 10 * time.Second
	DefaultProbeTimeoutEgaroucid = 30 * time.Second
)

// probeWire is the probe's match: a bot match (match_id ≠ 0, round_no and
// room_created_at null) at its start, on the 60 s clock of a FlipSight
// bot match.
const (
	probeMatchID = 1
	probeClock   = 60 * time.Second
	// probeThink is what the engines flipbot times may think on a probe
	// move: the answer matters, not its strength.
	probeThink = 500 * time.Millisecond
)

// ProbeError is the error of a failed probe: which engine (the flag and
// the program) and why, in one line.
type ProbeError struct {
	Flag    string // "--engine", "--nboard", "--edax", "--egaroucid"
	Program string // the command or the path
	Cause   string // not found, not executable, exited with status N…, no answer in N s, an illegal answer…
	Err     error  // the adapter's error, when there was one
}

func (e *ProbeError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Flag, e.Program, e.Cause)
}

func (e *ProbeError) Unwrap() error { return e.Err }

// Timeout returns how long a probe of the configured engine waits for each
// answer: Config.ProbeTimeout when set, else DefaultProbeTimeoutEgaroucid
// for Egaroucid and DefaultProbeTimeout for the others.
func (c Config) Timeout() time.Duration {
	if c.ProbeTimeout > 0 {
		return c.ProbeTimeout
	}
	if k, _ := c.Kind(); k == Egaroucid {
		return DefaultProbeTimeoutEgaroucid
	}
	return DefaultProbeTimeout
}

// Configured reports whether the configuration names one external engine
// (a flag error counts as none: Kind reports it).
func (c Config) Configured() bool {
	k, err := c.Kind()
	return err == nil && k != None
}

// Probe checks, before the bot goes online, that the configured engine
// plays: it makes an instance with New and starts it as the bot does
// (Start), asks it for a move in the start position of each mode it plays
// (every mode for a JSON-line engine, std for the others) through the
// adapter's own Move, a JSON-line engine with a request that is the spec's
// (match_id 1, leg 0, revision 0, remaining_ms 60000, budget_ms the probe's
// bound), each answer awaited at most Timeout from the start of its ask
// (an engine still loading, engines.ErrNotReady, is asked again), checks
// the answer against the rules, and closes the instance. It returns nil
// with no external engine, and a *ProbeError otherwise.
func (c Config) Probe(ctx context.Context) error {
	k, err := c.Kind()
	if err != nil || k == None {
		return err
	}
	flag, program := "--"+k.String(), c.program(k)
	fail := func(cause string, err error) error {
		return &ProbeError{Flag: flag, Program: program, Cause: cause, Err: err}
	}
	tail := &probeTail{}
	base := c.Logger
	if base == nil {
		base = slog.New(slog.DiscardHandler)
	}
	c.Logger = slog.New(&probeHandler{base: base.Handler(), tail: tail})
	e, err := c.New()
	if err != nil {
		return fail(startCause(err), err)
	}
	defer func() { _ = e.Close() }()
	if st, ok := e.(Starter); ok {
		if err := st.Start(); err != nil {
			return fail(startCause(err), err)
		}
	}
	timeout := c.Timeout()
	for _, mode := range othello.AllModes() {
		if !c.Supports(mode) {
			continue
		}
		res, err := probeMove(ctx, e, mode, timeout)
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s %s: probe cancelled: %w", flag, program, ctx.Err())
		}
		return fail(tail.cause(err, mode, timeout, res), err)
	}
	return nil
}

// probeMove asks e for a move in mode's start position, for at most
// timeout, asking again while the engine is still loading.
func probeMove(ctx context.Context, e engines.Engine, mode othello.Mode, timeout time.Duration) (engines.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pos := othello.New(mode)
	for {
		wire := othello.NewEngineRequest(pos)
		wire.MatchID = probeMatchID
		if wire.BlockedSquares == nil {
			wire.BlockedSquares = []int{}
		}
		// The spec's budget_ms is min(cap, remaining − 0.75 s): the cap is
		// what is left of the probe's bound.
		left := time.Until(deadline(ctx))
		req := engines.Request{Position: pos, Remaining: probeClock, At: time.Now(), Budget: min(probeThink, left),
			Cap: left.Truncate(time.Millisecond), Wire: &wire}
		res, err := e.Move(ctx, req)
		if err == nil {
			if cerr := adapt.Check(pos, res.Move); cerr != nil {
				return res, fmt.Errorf("%w: %w", errIllegal, cerr)
			}
			return res, nil
		}
		if !errors.Is(err, engines.ErrNotReady) || ctx.Err() != nil {
			return res, err
		}
		select {
		case <-ctx.Done():
			return res, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func deadline(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// errIllegal marks an answer the rules refuse.
var errIllegal = errors.New("an illegal answer")

// program returns the command or path of kind k.
func (c Config) program(k Kind) string {
	switch k {
	case JSONLine:
		return c.Engine
	case NBoard:
		return c.NBoard
	case Edax:
		return c.Edax
	case Egaroucid:
		return c.Egaroucid
	}
	return ""
}

// startCause names why a program did not start.
func startCause(err error) string {
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return "not found (" + lastPart(err) + ")"
	case errors.Is(err, fs.ErrPermission), errors.Is(err, exec.ErrDot):
		return "not executable (" + lastPart(err) + ")"
	}
	return err.Error()
}

// lastPart is the innermost words of an error ("no such file or
// directory").
func lastPart(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// probeTail keeps what the adapter logged of the engine's end: its exit
// status and its last stderr lines.
type probeTail struct {
	mu     sync.Mutex
	exit   string
	stderr []string
}

// probeStderrLines is how many of the engine's last stderr lines a probe
// error quotes, and probeLineLen how much of each.
const (
	probeStderrLines = 3
	probeLineLen     = 160
)

func (t *probeTail) note(r slog.Record) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r.Attrs(func(a slog.Attr) bool {
		switch {
		case r.Message == "engine stderr" && a.Key == "line":
			line := a.Value.String()
			if len(line) > probeLineLen {
				line = line[:probeLineLen] + "…"
			}
			t.stderr = append(t.stderr, line)
			if len(t.stderr) > probeStderrLines {
				t.stderr = t.stderr[1:]
			}
		case r.Message == "engine exited" && a.Key == "status":
			t.exit = a.Value.String()
		}
		return true
	})
}

// cause names why a probe move failed, in one line.
func (t *probeTail) cause(err error, mode othello.Mode, timeout time.Duration, res engines.Result) string {
	if errors.Is(err, errIllegal) || errors.Is(err, othello.ErrIllegalMove) {
		return fmt.Sprintf("an illegal answer in the %s start position (%s)", mode, lastPart(err))
	}
	if c := startCause(err); c != err.Error() {
		return c
	}
	// The process's end is logged as it is reaped: give it a moment.
	for range 10 {
		t.mu.Lock()
		exit := t.exit
		t.mu.Unlock()
		if exit != "" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	switch {
	case t.exit != "" && t.exit != "signal: killed":
		b.WriteString("exited with " + t.exit)
	case errors.Is(err, adapt.ErrTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, engines.ErrNotReady):
		fmt.Fprintf(&b, "no answer in %v to the %s start position", timeout, mode)
	default:
		b.WriteString(err.Error())
	}
	if len(t.stderr) > 0 {
		b.WriteString("; its last stderr: " + strings.Join(t.stderr, " | "))
	}
	return b.String()
}

// probeHandler passes the adapter's logs on to base and notes the
// engine's end for the probe's error.
type probeHandler struct {
	base slog.Handler
	tail *probeTail
}

func (h *probeHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *probeHandler) Handle(ctx context.Context, r slog.Record) error {
	h.tail.note(r)
	if h.base.Enabled(ctx, r.Level) {
		return h.base.Handle(ctx, r)
	}
	return nil
}

func (h *probeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &probeHandler{base: h.base.WithAttrs(as), tail: h.tail}
}

func (h *probeHandler) WithGroup(name string) slog.Handler {
	return &probeHandler{base: h.base.WithGroup(name), tail: h.tail}
}
