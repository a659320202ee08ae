package appliance

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/bot/analysis"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/internal/clock"
	"flipbot.dev/flipbot/internal/wait"
)

// Background analysis: while no match runs, the device analyses the kept
// games that have no analysis yet, newest first, with the built-in engine
// (bot/analysis), and keeps each analysis beside its game. A match
// starting (the bot reporting one) stops the game under analysis at once;
// it is analysed again from its start once no match runs.

// Timings of the background analysis.
const (
	// analyseAfter is how long after the start the first analysis waits,
	// so that the bot can report matches it picks up again first.
	analyseAfter = 20 * time.Second
	// analyseRecheck is how often the store is looked at again when every
	// game is analysed (a finished match's games arrive after its end).
	analyseRecheck = 30 * time.Second
	// maxFailed bounds the games whose analysis failed and are not tried
	// again until a restart.
	maxFailed = 1000
)

// AnalysisEngine makes the engine that analyses the games in the
// background, with the settings in effect; the appliance makes one per
// run of analyses and drops it when every game is analysed.
type AnalysisEngine func(s settings.Settings) analysis.Searcher

// matchGate says whether a match runs. The runner sets it from the bot's
// reports; the analyser reads it and waits for its changes. Safe for
// concurrent use.
type matchGate struct {
	mu      sync.Mutex
	busy    bool
	changed chan struct{} // closed at the next change
}

func newMatchGate() *matchGate { return &matchGate{changed: make(chan struct{})} }

// set records whether a match runs, waking the waiters on a change.
func (g *matchGate) set(busy bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.busy == busy {
		return
	}
	g.busy = busy
	close(g.changed)
	g.changed = make(chan struct{})
}

// state returns whether a match runs and a channel closed at the next
// change.
func (g *matchGate) state() (bool, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.busy, g.changed
}

// analyser analyses the kept games in the background (run). One goroutine
// runs it; onAnalysed (tests) is called after each analysis is kept.
type analyser struct {
	games    *record.Store
	engine   AnalysisEngine
	settings func() settings.Settings
	opts     analysis.Options
	gate     *matchGate
	log      *slog.Logger
	after    time.Duration
	recheck  time.Duration
	failed   map[string]bool

	onAnalysed func(id string)
}

// run analyses games until ctx ends: after a.after, then whenever no
// match runs, the newest game without an analysis first.
func (a *analyser) run(ctx context.Context) {
	if wait.Sleep(ctx, clock.System(), a.after) != nil {
		return
	}
	var eng analysis.Searcher // made for a run of analyses, dropped after
	for ctx.Err() == nil {
		busy, changed := a.gate.state()
		if busy {
			select {
			case <-changed:
			case <-ctx.Done():
			}
			continue
		}
		sum, ok := a.next()
		if !ok {
			eng = nil // every game analysed: the engine's table can go
			select {
			case <-changed:
			case <-time.After(a.recheck):
			case <-ctx.Done():
			}
			continue
		}
		if eng == nil {
			eng = a.engine(a.settings())
		}
		a.analyse(ctx, eng, sum, changed)
	}
}

// next returns the newest game without an analysis that has not failed;
// none once maxFailed games have failed (until a restart).
func (a *analyser) next() (record.Summary, bool) {
	if len(a.failed) >= maxFailed {
		return record.Summary{}, false
	}
	sums, _ := a.games.List(record.Filter{}, 0, 0)
	for _, s := range sums {
		if s.Analysis == nil && !a.failed[s.ID] {
			return s, true
		}
	}
	return record.Summary{}, false
}

// analyse analyses one game, stopping at once when the gate changes (a
// match starts) or ctx ends.
func (a *analyser) analyse(ctx context.Context, eng analysis.Searcher, sum record.Summary, changed <-chan struct{}) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-changed:
			cancel()
		case <-stop:
		}
	}()
	g, err := a.games.Get(sum.ID)
	if err != nil {
		a.fail(sum.ID, err)
		return
	}
	start := time.Now()
	an, err := analysis.Game(actx, eng, &g, a.opts)
	switch {
	case actx.Err() != nil:
		a.log.Info("game analysis stopped: a match started", "game", sum.ID, "after", time.Since(start).Round(time.Millisecond))
		return
	case err != nil:
		a.fail(sum.ID, err)
		return
	}
	if err := a.games.SaveAnalysis(an); err != nil {
		if errors.Is(err, record.ErrNotFound) {
			return // rotated away meanwhile
		}
		a.fail(sum.ID, err)
		return
	}
	s := an.Summary()
	a.log.Info("game analysed", "game", sum.ID, "mode", sum.Mode, "moves", len(an.Moves),
		"took", time.Since(start).Round(100*time.Millisecond), "mean_loss_black", round2(s.MeanLoss[0]),
		"mean_loss_white", round2(s.MeanLoss[1]), "turning_points", len(an.TurningPoints))
	if a.onAnalysed != nil {
		a.onAnalysed(sum.ID)
	}
}

// fail notes a game whose analysis failed: it is not tried again until a
// restart.
func (a *analyser) fail(id string, err error) {
	a.log.Warn("game not analysed", "game", id, "err", err)
	a.failed[id] = true
}

func round2(v float64) float64 { return float64(int(v*100+0.5)) / 100 }
