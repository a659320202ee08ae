// Package wait waits on the outside world with a way out: a sleep that a
// context ends ([Sleep]) and the process's stop signals, one step per
// signal ([OnStopSignals]).
//
// Files: wait.go ([Sleep], [OnStopSignals]).
//
// It imports internal/clock only.
package wait

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"flipbot.dev/flipbot/internal/clock"
)

// Sleep waits for d on clk or until ctx ends, whichever comes first: nil
// after d, else ctx's cause (context.Cause).
func Sleep(ctx context.Context, clk clock.Clock, d time.Duration) error {
	t := clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// OnStopSignals calls steps[0] on the first SIGINT or SIGTERM the process
// receives, steps[1] on the second, and so on, each on one goroutine in
// order; signals after the last step are ignored. stop releases the
// signals (they act as before OnStopSignals) and ends the goroutine: no
// step starts after it returns (one under way is not waited for). It may
// be called more than once.
func OnStopSignals(steps ...func(os.Signal)) (stop func()) {
	c := make(chan os.Signal, len(steps)+1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for _, step := range steps {
			select {
			case s := <-c:
				step(s)
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(c)
			close(done)
		})
	}
}
