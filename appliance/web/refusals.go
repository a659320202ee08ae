package web

import (
	"log/slog"
	"sync"
	"time"
)

// RefusalLogInterval is how often a kind of refused request is logged at
// most: the first at once, with its detail, the rest of the interval as
// one line with their count. gokrazy keeps a service's last 100 log lines,
// and a flood of refusals (150 requests with a foreign Host wrote 150
// lines) must not push the pairing code out of them.
const RefusalLogInterval = time.Minute

// refusalLog logs refused requests (and failures a visitor can repeat at
// will, such as a damaged record) in aggregate, per kind (the message):
// the first of a quiet kind at once, then at most one line per interval
// with the number refused in it (more) and the last one's detail. Safe for
// concurrent use.
type refusalLog struct {
	log   *slog.Logger
	every time.Duration

	mu    sync.Mutex
	kinds map[string]*refusals // kinds refused within the current interval
}

// refusals counts the refusals of one kind since its last line.
type refusals struct {
	n    int
	last []any // the last one's attributes
}

func newRefusalLog(log *slog.Logger, every time.Duration) *refusalLog {
	return &refusalLog{log: log, every: every, kinds: map[string]*refusals{}}
}

// note logs a refused request of kind (a log message) with attrs, or
// counts it for the interval's line.
func (r *refusalLog) note(kind string, attrs ...any) {
	r.mu.Lock()
	if c := r.kinds[kind]; c != nil {
		c.n++
		c.last = attrs
		r.mu.Unlock()
		return
	}
	r.kinds[kind] = &refusals{}
	r.mu.Unlock()
	r.log.Warn(kind, attrs...)
	time.AfterFunc(r.every, func() { r.flush(kind) })
}

// flush logs the count of kind's interval, if any, and starts another
// interval; a kind refused no more in an interval is quiet again, and its
// next refusal is logged at once.
func (r *refusalLog) flush(kind string) {
	r.mu.Lock()
	c := r.kinds[kind]
	if c == nil || c.n == 0 {
		delete(r.kinds, kind)
		r.mu.Unlock()
		return
	}
	n, last := c.n, c.last
	c.n, c.last = 0, nil
	r.mu.Unlock()
	r.log.Warn(kind, append([]any{"more", n, "within", r.every.String()}, last...)...)
	time.AfterFunc(r.every, func() { r.flush(kind) })
}
