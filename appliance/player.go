package appliance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/bot/analysis"
	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/egaroucid"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/route"
	"flipbot.dev/flipbot/engines/search"
	"flipbot.dev/flipbot/engines/sizing"
	"flipbot.dev/flipbot/flipsight"
)

// botPlayerConfig is what the real player needs besides the token and
// the settings.
type botPlayerConfig struct {
	APIURL, StreamURL string
	// Egaroucid is the Egaroucid console binary ("" when not installed).
	Egaroucid string
	// CPU is reported to FlipSight as environment.cpu (the device model).
	CPU    string
	Logger *slog.Logger
	// Records keeps the finished games (nil: none kept).
	Records bot.Recorder
	// Machine is what Egaroucid is sized from (zero: sizing.Detect()).
	Machine sizing.Machine
	// Evals loads the built-in engine's evaluations once (nil: the player
	// loads its own); the background analysis shares them.
	Evals func() *eval.Set
	// Drain bounds how long the running matches are played on when Play's
	// context is cancelled (DefaultDrain when 0).
	Drain time.Duration
}

// botPlayer runs the bot package's player with the built-in engine (and
// Egaroucid for std when the settings say so).
type botPlayer struct {
	cfg botPlayerConfig
	// evals loads the built-in engine's evaluations once, on the first
	// Play: later Plays (a new token, new settings) reuse them.
	evals func() *eval.Set
}

func newBotPlayer(cfg botPlayerConfig) Player {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	log := cfg.Logger
	evals := cfg.Evals
	if evals == nil {
		evals = sync.OnceValue(func() *eval.Set { return builtinEvals(log) })
	}
	return botPlayer{cfg: cfg, evals: evals}
}

// Play implements Player: one bot.Bot per call, stopped by ctx.
func (p botPlayer) Play(ctx context.Context, token flipsight.Token, s settings.Settings, report func(bot.Status)) error {
	client, err := flipsight.NewClient(flipsight.Config{APIURL: p.cfg.APIURL, StreamURL: p.cfg.StreamURL, Token: token})
	if err != nil {
		return fmt.Errorf("flipsight client: %w", err)
	}
	builtin := search.New(builtinOptions(s, p.evals()))
	defer builtin.Close()
	factory, pool := p.engineFactory(builtin, s)
	onStatus := report
	if pool != nil {
		defer pool.Close() // after the bot has closed its engines
		// No rated game with a broken engine: Egaroucid answers before the
		// bot goes online, or the device stays offline and says why.
		p.cfg.Logger.Info("checking Egaroucid before going online", "bound", EngineProbeTimeout)
		if err := pool.Check(ctx, EngineProbeTimeout); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("%w: Egaroucid (%s): %w", ErrEngine, p.cfg.Egaroucid, err)
		}
		var probed bool
		onStatus = func(st bot.Status) { // from the bot's loop, one call at a time
			if !probed && (st.Online() || len(st.Matches) > 0) {
				// The build is checked once the token works, before any match.
				probed = true
				pool.Probe(ctx)
			}
			if report != nil {
				report(st)
			}
		}
	}
	drain := p.cfg.Drain
	if drain == 0 {
		drain = DefaultDrain
	}
	opts := bot.Options{
		Client:     client,
		Engine:     factory,
		CPU:        p.cfg.CPU,
		MaxMatches: s.MaxMatches,
		Logger:     p.cfg.Logger,
		OnStatus:   onStatus,
		Records:    p.cfg.Records,
		// The built-in engine ponders as flipbot's --ponder default says
		// (off until it measures stronger); Egaroucid does not ponder.
		Ponder:    config.DefaultPonder,
		Drain:     drain,
		MoveDrain: DefaultMoveDrain,
	}
	if pool != nil {
		// An engine failing in play is checked between matches the way
		// it was before going online.
		opts.Probe = func(ctx context.Context) error { return pool.Check(ctx, EngineProbeTimeout) }
	}
	b, err := bot.New(opts)
	if err != nil {
		return fmt.Errorf("start bot: %w", err)
	}
	// A new token or new settings abandon the running matches; a shutdown
	// plays them out (Player).
	stopNow := context.AfterFunc(ctx, func() {
		if errors.Is(context.Cause(ctx), errStopNow) {
			b.Stop()
		}
	})
	defer stopNow()
	err = b.Run(ctx)
	if flipsight.IsAuth(err) {
		return fmt.Errorf("%w: %w", ErrTokenRejected, err)
	}
	return err
}

// engineFactory gives the bot the engines the settings ask for, as
// providers of engines/…: the built-in engine shared by every match
// (engines.Shared), routed by mode (engines/route: the modes off in the
// settings not at all), and, with Egaroucid for std, std opened on the
// Egaroucid pool (engines/egaroucid: a pair per match from its warm pool,
// the built-in engine when every pair is taken or the build is refused).
// The pool is nil without Egaroucid; the caller closes it after the bot.
func (p botPlayer) engineFactory(builtin engines.Engine, s settings.Settings) (bot.Engines, *egaroucid.Pool) {
	off := offModes(s)
	if s.Engines["std"] != settings.EngineEgaroucid || p.cfg.Egaroucid == "" {
		return withEgaroucid(builtin, off, nil), nil
	}
	m := p.cfg.Machine
	if m.Memory == 0 {
		m = sizing.Detect()
	}
	pool := newEgaroucidPool(p.cfg.Egaroucid, s, m, engines.Shared(builtin), p.cfg.Logger)
	return withEgaroucid(builtin, off, pool), pool
}

// withEgaroucid is the bot's engines: the built-in engine shared by every
// match in the modes not off, and std opened on pool when there is one,
// reported as what plays std now.
func withEgaroucid(builtin engines.Engine, off map[othello.Mode]bool, pool *egaroucid.Pool) bot.Engines {
	r := &route.Provider{Default: engines.Shared(builtin), Off: off}
	f := bot.Engines{Name: builtin.Name(), Modes: r.Modes(), Provider: r}
	if q, ok := builtin.(engines.QuickMover); ok {
		// The fallbacks of Egaroucid's moves too.
		f.Quick = q
	}
	if pool == nil {
		return f
	}
	r.ByMode = map[othello.Mode]engines.Provider{othello.Std: pool}
	f.Name = builtin.Name() + "; std: Egaroucid"
	// What plays std changes as pairs are taken, or the build is refused:
	// the bot asks before every agent_poll.
	f.Describe = func() string { return pool.Describe(builtin.Name()) }
	return f
}

// offModes returns the modes the settings turn off.
func offModes(s settings.Settings) map[othello.Mode]bool {
	off := map[othello.Mode]bool{}
	for name, e := range s.Engines {
		if e != settings.EngineOff {
			continue
		}
		if m, err := othello.ParseMode(name); err == nil {
			off[m] = true
		}
	}
	return off
}

// builtinEvals returns the built-in engine's evaluations: per mode the one
// measured stronger (eval.Best: today the trained pattern evaluation in
// every mode), as flipbot's default. Should the
// embedded weights not load (a broken build; the eval package's tests
// guard against it), the hand-made evaluation plays instead, logged, so
// the device still plays.
func builtinEvals(log *slog.Logger) *eval.Set {
	ev, err := eval.Best()
	if err != nil {
		log.Error("the trained evaluation does not load; the built-in engine uses the hand-made one", "err", err)
		return eval.BaselineSet()
	}
	return ev
}

// analysisHashMB caps the table of the background analysis' engine: it
// lives beside the bot's own.
const analysisHashMB = 32

// newAnalysisEngine returns the engine of the background analysis: the
// built-in engine with the settings' threads and evaluations evals, and a
// table of at most analysisHashMB.
func newAnalysisEngine(evals func() *eval.Set) AnalysisEngine {
	return func(s settings.Settings) analysis.Searcher {
		ev := evals()
		return search.New(search.Options{Threads: s.Threads, HashMB: min(s.HashMB, analysisHashMB), Eval8: ev.Eval8, Eval10: ev.Eval10})
	}
}

// builtinOptions is the built-in engine's search options with the
// settings' threads and table size and the evaluations ev.
func builtinOptions(s settings.Settings, ev *eval.Set) search.Options {
	return search.Options{Threads: s.Threads, HashMB: s.HashMB, Eval8: ev.Eval8, Eval10: ev.Eval10}
}
