package bot

import (
	"context"
	"fmt"

	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock"
	"flipbot.dev/flipbot/internal/text"
)

// noteEngineHealth counts the engine's failures in a row from the moves
// sent: after failingAfter of them the bot takes the engine as broken,
// says so once, and accepts no new match until a probe passes (loop).
func (b *Bot) noteEngineHealth(s Search) {
	switch {
	case s.Source == "engine":
		b.engineFaults = 0
	case s.Source == "fallback" && engineFault(s.Cause):
		b.engineFaults++
	}
	if b.engineFaults < failingAfter || b.engineFailing != "" {
		return
	}
	b.engineFailing = fmt.Sprintf("the engine failed on %d own moves in a row (last: %s)", b.engineFaults, s.Cause)
	b.log.Error("engine failing: accepting no new matches until it answers a probe (the running ones play on, with fallback moves where it fails)",
		"why", b.engineFailing, "probe_every", b.t.ProbeEvery)
	b.probedAt = b.clock.Now()
	b.publish()
}

// probeResult is a probe's answer for the loop.
type probeResult struct{ err error }

// maybeProbe probes a failing engine while no match runs, at most every
// Timing.ProbeEvery (loop).
func (b *Bot) maybeProbe() {
	if b.engineFailing == "" || b.probing || len(b.matches) > 0 || b.stopping() || b.draining ||
		clock.Since(b.clock, b.probedAt) < b.t.ProbeEvery {
		return
	}
	b.probing, b.probedAt = true, b.clock.Now()
	probe := b.opts.Probe
	if probe == nil {
		// Nothing to probe with (the built-in engine): the engine is
		// taken as answering again after ProbeEvery without a match.
		probe = func(context.Context) error { return nil }
	}
	// Counted with the move tasks: Run waits for it, and the stop cancels
	// it (pondering's context ends first).
	b.tasks.Add(1)
	go func() {
		defer b.tasks.Done()
		b.probeDone <- probeResult{err: probe(b.pondering)}
	}()
}

// onProbe handles a probe's answer (loop).
func (b *Bot) onProbe(r probeResult) {
	b.probing = false
	if r.err != nil {
		b.log.Warn("engine still failing its probe; accepting no new matches", "err", r.err, "next_in", b.t.ProbeEvery)
		return
	}
	b.log.Info("engine answers its probe again; accepting matches", "was", b.engineFailing)
	b.engineFailing, b.engineFaults = "", 0
	b.publish()
}

// failingSuffix is added to the engine's name in the environment report
// while the engine is taken as broken.
const failingSuffix = " (failing: built-in fallback moves)"

// engineLabel is what the environment report says of the engine: its name,
// and while it is taken as broken, that the bot plays built-in moves; at
// most MaxEnvironmentLen characters, the suffix kept whole.
func (b *Bot) engineLabel(name string) string {
	if b.engineFailing == "" {
		return text.Clip(name, flipsight.MaxEnvironmentLen)
	}
	return text.Clip(name, flipsight.MaxEnvironmentLen-len([]rune(failingSuffix))) + failingSuffix
}
