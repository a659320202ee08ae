package led

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"periph.io/x/conn/v3/gpio"

	"flipbot.dev/flipbot/internal/clock"
)

// Bank drives a fixed set of LEDs with patterns from one goroutine (Run).
// Set may be called from any goroutine at any time; the latest patterns
// win. An LED whose pattern is unchanged by Set keeps its phase, so a
// repeated Set does not restart a blink.
type Bank struct {
	outs  []Output
	clock clock.Clock
	log   *slog.Logger

	mu       sync.Mutex // guards patterns
	patterns []Pattern
	wake     chan struct{} // capacity 1: "patterns changed"
}

// NewBank returns a Bank driving outs (all Off until Set). A nil clock
// means the system clock, a nil log slog.Default().
func NewBank(clk clock.Clock, log *slog.Logger, outs ...Output) *Bank {
	if clk == nil {
		clk = clock.System()
	}
	if log == nil {
		log = slog.Default()
	}
	return &Bank{
		outs:     outs,
		clock:    clk,
		log:      log,
		patterns: make([]Pattern, len(outs)),
		wake:     make(chan struct{}, 1),
	}
}

// Len returns the number of LEDs in the bank.
func (b *Bank) Len() int { return len(b.outs) }

// Set gives the LEDs their patterns, in the order the outputs were given
// to NewBank. Missing patterns mean Off; extra ones are ignored.
func (b *Bank) Set(patterns ...Pattern) {
	next := make([]Pattern, len(b.outs))
	copy(next, patterns)
	b.mu.Lock()
	same := slices.Equal(next, b.patterns)
	b.patterns = next
	b.mu.Unlock()
	if same {
		return
	}
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Patterns returns the patterns last given to Set.
func (b *Bank) Patterns() []Pattern {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.patterns)
}

// Run drives the LEDs until ctx is done, then turns them all off and
// returns. Write errors are logged once per LED and otherwise ignored: a
// broken LED never stops the caller.
func (b *Bank) Run(ctx context.Context) {
	n := len(b.outs)
	cur := make([]Pattern, n)
	start := make([]time.Time, n)
	level := make([]gpio.Level, n)
	written := make([]bool, n)
	failed := make([]bool, n)
	write := func(i int, l gpio.Level) {
		if written[i] && level[i] == l {
			return
		}
		if err := b.outs[i].Out(l); err != nil {
			if !failed[i] {
				b.log.Warn("LED write failed; further errors are not logged", "led", Describe(b.outs[i]), "err", err)
				failed[i] = true
			}
			return
		}
		level[i], written[i] = l, true
	}
	defer func() {
		for i := range b.outs {
			written[i] = false // force the final write
			write(i, gpio.Low)
		}
	}()

	now := b.clock.Now()
	for i := range start {
		start[i] = now
	}
	b.adopt(cur, start, now)
	for {
		wait := time.Duration(0)
		for i := range b.outs {
			lit, next := cur[i].At(now.Sub(start[i]))
			write(i, gpio.Level(lit))
			if next > 0 && (wait == 0 || next < wait) {
				wait = next
			}
		}
		var timer clock.Timer
		var fire <-chan time.Time
		if wait > 0 {
			timer = b.clock.NewTimer(wait)
			fire = timer.C()
		}
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case <-b.wake:
			if timer != nil {
				timer.Stop()
			}
			now = b.clock.Now()
			b.adopt(cur, start, now)
		case <-fire:
			now = b.clock.Now()
		}
	}
}

// adopt copies the latest patterns into cur, restarting the phase of the
// LEDs whose pattern changed.
func (b *Bank) adopt(cur []Pattern, start []time.Time, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, p := range b.patterns {
		if cur[i] != p {
			cur[i] = p
			start[i] = now
		}
	}
}

// Describe names an output for logs and the status page: a pin's name
// (periph's pins have Name, "GPIO17"; their String is a JSON dump with the
// gpio character device), else its String, else its type.
func Describe(o Output) string {
	if n, ok := o.(interface{ Name() string }); ok {
		return n.Name()
	}
	if s, ok := o.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%T", o)
}
