// Package logagg logs repeated warnings in aggregate, so that whoever can
// make flipbot warn at will (a hostile server, an engine, a LAN client)
// cannot flood the log: gokrazy keeps a service's last 100 lines, and the
// owner must still find the pairing code and the bot's own news there.
//
// One file, logagg.go ([Log]). It imports internal/clock only, and any
// package may import it.
package logagg

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"flipbot.dev/flipbot/internal/clock"
)

// Log logs warnings (or news, Info) per kind (the message): the first of a quiet kind at
// once, with its attributes; the rest of the interval as one line at its
// end with their count (more=N), the interval (within) and the last one's
// attributes; a kind that came no more in an interval is quiet again. So
// a kind writes at most two lines in its first interval and one in each
// after it, whatever the number of warnings and of the ids they name. The
// kinds are the callers' constant messages: their number is bounded by
// the code. Safe for concurrent use.
type Log struct {
	log   *slog.Logger
	every time.Duration
	clock clock.Clock

	mu    sync.Mutex
	kinds map[string]*kind
}

// kind counts the warnings of one kind since its last line.
type kind struct {
	level slog.Level
	n     int
	last  []any
}

// New returns a Log writing Warn lines to log, a kind at most once per
// interval every after its first; clock nil means the system's.
func New(log *slog.Logger, every time.Duration, clk clock.Clock) *Log {
	if clk == nil {
		clk = clock.System()
	}
	return &Log{log: log, every: every, clock: clk, kinds: map[string]*kind{}}
}

// Warn logs a warning of a kind (msg, a constant message) with attrs, or
// counts it for the interval's line.
func (l *Log) Warn(msg string, attrs ...any) { l.note(slog.LevelWarn, msg, attrs) }

// Info is Warn at level Info, for news a caller can repeat at will.
func (l *Log) Info(msg string, attrs ...any) { l.note(slog.LevelInfo, msg, attrs) }

func (l *Log) note(level slog.Level, msg string, attrs []any) {
	l.mu.Lock()
	if k := l.kinds[msg]; k != nil {
		k.n++
		k.last = attrs
		l.mu.Unlock()
		return
	}
	l.kinds[msg] = &kind{level: level}
	l.mu.Unlock()
	l.log.Log(context.Background(), level, msg, attrs...)
	l.clock.AfterFunc(l.every, func() { l.flush(msg) })
}

// flush logs the count of msg's interval, if any, and starts another
// interval; a kind that came no more is quiet again.
func (l *Log) flush(msg string) {
	l.mu.Lock()
	k := l.kinds[msg]
	if k == nil || k.n == 0 {
		delete(l.kinds, msg)
		l.mu.Unlock()
		return
	}
	n, last, level := k.n, k.last, k.level
	k.n, k.last = 0, nil
	l.mu.Unlock()
	l.log.Log(context.Background(), level, msg, append([]any{"more", n, "within", l.every.String()}, last...)...)
	l.clock.AfterFunc(l.every, func() { l.flush(msg) })
}
