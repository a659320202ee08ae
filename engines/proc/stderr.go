package proc

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"flipbot.dev/flipbot/internal/clock"
	"flipbot.dev/flipbot/internal/logagg"
)

// The engines' stderr reaches the log at most stderrBurst lines at once and
// stderrPerInterval lines per stderrInterval after that, from all the
// engines that share a budget ([WithStderrBudget]): an engine that floods
// its stderr (measured: 23.5 MB in 10 s) must not fill the disk or push
// everything else out of a small log (gokrazy keeps the last 100 lines of a
// service, and the pairing code is logged again only once a minute). A
// restarted engine does not get a fresh burst. The lines beyond are read
// and dropped, and counted in one line per interval (internal/logagg).
const (
	stderrBurst       = 20
	stderrPerInterval = 20
	stderrInterval    = time.Minute
)

// msgStderrDropped is the line that counts the dropped stderr lines.
const msgStderrDropped = "engine stderr lines dropped: more than the log takes"

// stderrBudget is a token bucket over the engines' stderr lines: tokens
// refill at stderrPerInterval per stderrInterval up to stderrBurst; a
// line takes one. Safe for concurrent use (every engine's reader).
type stderrBudget struct {
	clock   clock.Clock
	dropped *logagg.Log

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// newStderrBudget returns a full budget whose dropped lines are counted in
// log; clock nil means the system's.
func newStderrBudget(log *slog.Logger, clk clock.Clock) *stderrBudget {
	if clk == nil {
		clk = clock.System()
	}
	return &stderrBudget{clock: clk, dropped: logagg.New(log, stderrInterval, clk),
		tokens: stderrBurst, last: clk.Now()}
}

// allow reports whether a line may be logged now, taking a token; a line
// that may not is counted as dropped from engine.
func (b *stderrBudget) allow(engine string) bool {
	now := b.clock.Now()
	b.mu.Lock()
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(stderrBurst, b.tokens+d.Seconds()*stderrPerInterval/stderrInterval.Seconds())
		b.last = now
	}
	ok := b.tokens >= 1
	if ok {
		b.tokens--
	}
	b.mu.Unlock()
	if !ok {
		b.dropped.Warn(msgStderrDropped, "engine", engine)
	}
	return ok
}

// WithStderrBudget returns log with a stderr budget of its own: the
// engines started with it, or with a logger made from it (With,
// WithGroup), share one budget of stderr lines, which their restarts do
// not refill; the lines dropped are counted in log. An engine started
// with a logger without one has a budget of its own, full at every start.
// The appliance and flipbot give all their engines one. The budget runs
// on clock (nil: the system's; tests use a fake one).
func WithStderrBudget(log *slog.Logger, clk clock.Clock) *slog.Logger {
	return withBudget(log, newStderrBudget(log, clk))
}

// withBudget returns log carrying b.
func withBudget(log *slog.Logger, b *stderrBudget) *slog.Logger {
	return slog.New(budgetHandler{Handler: log.Handler(), budget: b})
}

// budgetOf returns the budget log carries, or nil.
func budgetOf(log *slog.Logger) *stderrBudget {
	if log == nil {
		return nil
	}
	if h, ok := log.Handler().(budgetHandler); ok {
		return h.budget
	}
	return nil
}

// budgetHandler is a handler that carries a stderr budget through With
// and WithGroup; it logs as the handler it wraps.
type budgetHandler struct {
	slog.Handler
	budget *stderrBudget
}

// Enabled reports the wrapped handler's answer.
func (h budgetHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.Handler.Enabled(ctx, l)
}

// Handle logs r with the wrapped handler.
func (h budgetHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.Handler.Handle(ctx, r)
}

// WithAttrs keeps the budget.
func (h budgetHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return budgetHandler{Handler: h.Handler.WithAttrs(as), budget: h.budget}
}

// WithGroup keeps the budget.
func (h budgetHandler) WithGroup(name string) slog.Handler {
	return budgetHandler{Handler: h.Handler.WithGroup(name), budget: h.budget}
}
