package main

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"syscall"
	"time"

	"flipbot.dev/flipbot/arena/arenatest"
)

// The faults, fired in this order, one at a time.
const (
	faultCut = iota
	fault503
	faultLose
	faultCrash
	faultHang
	faultRestart
	nFaults
)

// Fault parameters.
const (
	// burst503 is how many API answers a 503 fault replaces.
	burst503 = 3
	// hangFor is how long a stopped engine stays stopped.
	hangFor = 10 * time.Second
	// downFor is how long the server is away in a restart.
	downFor = 3 * time.Second
)

// injector fires the faults in turn on the bot's server and engines.
type injector struct {
	front *arenatest.Front
	ep    *arenatest.Endpoint
	c     *counters
	log   *slog.Logger
	// hang and down are how long a stopped engine hangs (hangFor) and
	// how long the server is away in a restart (downFor).
	hang, down time.Duration
}

// run fires one fault at a time, at random intervals around every, until
// ctx ends. It returns an error only when the server could not come back
// after a restart.
func (in injector) run(ctx context.Context, every time.Duration) error {
	for i := 0; ; i++ {
		t := time.NewTimer(every/2 + rand.N(every))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		if err := in.fire(ctx, i%nFaults); err != nil {
			return err
		}
	}
}

// fire injects one fault.
func (in injector) fire(ctx context.Context, fault int) error {
	switch fault {
	case faultCut:
		n := in.front.CutStreams()
		in.c.cuts.Add(1)
		in.log.Info("fault: stream cut", "streams", n)
	case fault503:
		in.front.Inject(func(p *arenatest.Plan) {
			for range burst503 {
				p.Requests = append(p.Requests, arenatest.Answer{Status: http.StatusServiceUnavailable})
			}
		})
		in.c.f503.Add(1)
		in.log.Info("fault: the next API answers are 503", "answers", burst503)
	case faultLose:
		in.front.Inject(func(p *arenatest.Plan) { p.LoseMoveAnswers++ })
		in.c.lost.Add(1)
		in.log.Info("fault: the next move's answer is lost")
	case faultCrash:
		if pid := anEngine(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			in.c.crashes.Add(1)
			in.log.Info("fault: engine killed", "pid", pid)
		}
	case faultHang:
		if pid := anEngine(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGSTOP)
			in.c.hangs.Add(1)
			in.log.Info("fault: engine stopped (hangs)", "pid", pid, "for", in.hang)
			time.AfterFunc(in.hang, func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
		}
	case faultRestart:
		in.ep.Stop()
		in.c.restarts.Add(1)
		in.log.Info("fault: server restart", "down", in.down)
		t := time.NewTimer(in.down)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		// Back up even when the play is over: the bot drains through it.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := in.ep.Start(sctx); err != nil {
			return fmt.Errorf("server restart: %w", err)
		}
	}
	return nil
}
