package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/arena/arenatest"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/jsonline"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
	"flipbot.dev/flipbot/flipsight"
)

// token is the soak bot's token in the arena.
const token = "fsbm_SOAKTESTTOKEN"

// stopWait bounds the wait for the bot to stop once its context is
// cancelled: its own bounds, the running matches' drain and the moves in
// flight, and 30 s more. An interrupt during play cancels the bot with its
// matches in play, and at 60 s clocks they take minutes to finish (a
// 30-s wait once gave up on a bot that was draining them, and the report
// was lost).
const stopWait = bot.DefaultDrain + bot.DefaultMoveDrain + 30*time.Second

// errFigures reports that a zero-figure was not zero or a resource did not
// come back (the report shows which).
var errFigures = errors.New("a figure failed")

// run plays the soak that cfg describes and writes its progress lines and
// its report to stdout. When ctx ends the play ends early and the report
// follows (of the matches ended by then).
func run(ctx context.Context, cfg config, stdout io.Writer) (err error) {
	ctx, abort := context.WithCancel(ctx)
	defer abort()
	out, err := outDir(cfg.Out)
	if err != nil {
		return err
	}
	engineBin, err := engineBinary(ctx, cfg.EngineBin, out)
	if err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(out, "bot.log"))
	if err != nil {
		return fmt.Errorf("bot log: %w", err)
	}
	defer logf.Close()
	c := &counters{}
	log := slog.New(sourceCounter{next: slog.NewTextHandler(logf, &slog.HandlerOptions{Level: slog.LevelInfo}), c: c})
	samplesf, err := os.Create(filepath.Join(out, "samples.tsv"))
	if err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	defer samplesf.Close()

	a, err := newArena(cfg, log.With("side", "arena"))
	if err != nil {
		return err
	}
	actx, acancel := context.WithCancel(context.Background())
	defer acancel()
	go a.Run(actx, 50*time.Millisecond)
	defer a.Close()

	frontLog := log.With("side", "front")
	front := arenatest.NewFront(a.Handler(), arenatest.Options{Token: token, OnMove: func(m arenatest.MoveCall) {
		if c.noteMove(m) {
			frontLog.Warn("move refused", "status", m.Status, "error", m.Code)
		}
	}})
	ep, err := arenatest.Listen(ctx, "127.0.0.1:0", front)
	if err != nil {
		return err
	}
	defer ep.Stop()

	runtime.GC()
	base := sample()

	tr := &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second, ResponseHeaderTimeout: 30 * time.Second}
	b, closeEngines, err := newBot(cfg, ep.URL()+arena.APIPath, &http.Client{Transport: tr}, engineBin, c, log)
	if err != nil {
		return err
	}
	defer func() { _ = closeEngines() }() // on an early return; closed before the report otherwise
	bctx, bcancel := context.WithCancel(ctx)
	defer bcancel()
	runDone := make(chan error, 1)
	go func() { runDone <- b.Run(bctx) }()

	start := time.Now()
	smp, err := newSampler(samplesf, start)
	if err != nil {
		return err
	}
	playCtx, stopPlay := context.WithTimeout(ctx, cfg.Duration)
	defer stopPlay()
	var wg sync.WaitGroup
	// On an early return: stop the challenger's settling too, and wait.
	defer func() { abort(); wg.Wait() }()
	injected := make(chan error, 1)
	ch := newChallenger(a, c, cfg.Modes, log)
	wg.Go(func() { ch.run(ctx, playCtx.Done()) })
	wg.Go(func() {
		if err := (injector{front: front, ep: ep, c: c, log: log, hang: hangFor, down: downFor}).run(playCtx, cfg.FaultEvery); err != nil {
			injected <- err
		}
	})

	if err := play(playCtx, cfg, c, smp, start, out, stdout, runDone, injected); err != nil {
		return err
	}
	if cfg.HeapEvery > 0 {
		// The last profile while the bot is still up with its matches in play.
		if err := writeHeapProfile(out, time.Since(start)); err != nil {
			return err
		}
	}
	stopPlay()
	wg.Wait() // the matches in play end
	select {
	case err := <-injected:
		return err
	default:
	}
	bcancel()
	var runErr error
	select {
	case runErr = <-runDone:
	case <-time.After(stopWait):
		return fmt.Errorf("the bot did not stop within %v", stopWait)
	}
	// The warm engine processes are the pool's, which outlives the bot (as
	// flipbot's): closed here, so that the figures after count what the bot
	// and its engines leave behind.
	if err := closeEngines(); err != nil {
		return fmt.Errorf("closing the engines: %w", err)
	}
	tr.CloseIdleConnections()
	wall := time.Since(start)
	// Give the server side of the closed connections time to go.
	var after snapshot
	for range 100 {
		runtime.GC()
		if after = sample(); cameBack(base, after) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !report(stdout, c, outcome{base: base, after: after, rss: smp.rss, heap: smp.heap, wall: wall, runErr: runErr}) {
		return errFigures
	}
	return nil
}

// play samples the resources, writes the heap profiles and the progress
// lines until ctx ends. It returns early with an error when the bot
// stopped, the injector failed (injected carries only errors) or a sample or profile could not be
// written.
func play(ctx context.Context, cfg config, c *counters, smp *sampler, start time.Time, out string, stdout io.Writer,
	runDone, injected <-chan error) error {
	tick := time.NewTicker(cfg.SampleEvery)
	defer tick.Stop()
	progress := time.NewTicker(cfg.ProgressEvery)
	defer progress.Stop()
	var heapTick <-chan time.Time
	if cfg.HeapEvery > 0 {
		t := time.NewTicker(cfg.HeapEvery)
		defer t.Stop()
		heapTick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if err := smp.take(c.matches.Load()); err != nil {
				return err
			}
		case <-heapTick:
			if err := writeHeapProfile(out, time.Since(start)); err != nil {
				return err
			}
		case <-progress.C:
			fmt.Fprintf(stdout, "%5.0f s: %d matches, %d moves, %d illegal, %d faults\n", time.Since(start).Seconds(),
				c.matches.Load(), c.moves.Load(), c.illegal.Load(), c.faults())
		case err := <-runDone:
			return fmt.Errorf("the bot stopped early: %v", err)
		case err := <-injected:
			return err
		}
	}
}

// outDir returns the output directory, made if needed: dir, or a new
// temporary directory when dir is empty.
func outDir(dir string) (string, error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "flipbot-soak-")
		if err != nil {
			return "", fmt.Errorf("output directory: %w", err)
		}
		return d, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("output directory: %w", err)
	}
	return dir, nil
}

// engineBinary returns bin, or when empty builds flipengine into out.
func engineBinary(ctx context.Context, bin, out string) (string, error) {
	if bin != "" {
		return bin, nil
	}
	bin = filepath.Join(out, "flipengine")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "flipbot.dev/flipbot/cmd/flipengine")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build flipengine: %w", err)
	}
	return bin, nil
}

// newArena returns the arena: the soak bot and the house bot that
// challenges it.
func newArena(cfg config, log *slog.Logger) (*arena.Server, error) {
	a, err := arena.New(arena.Config{
		Bots: []arena.BotConfig{
			{Name: botName, Token: token, Modes: othello.AllModes(), MaxMatches: atOnce, NoAutoMatch: true},
			{Name: houseName, Builtin: true, Level: cfg.Level, Modes: othello.AllModes(), MaxMatches: 8, NoAutoMatch: true},
		},
		ClockPerLeg:   cfg.Clock,
		SearchThreads: 1,
		Logger:        log,
	})
	if err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	return a, nil
}

// newBot returns the bot under test: the API at apiURL through hc, an
// external engine process per leg (engineBin), its late moves counted.
func newBot(cfg config, apiURL string, hc *http.Client, engineBin string, c *counters, log *slog.Logger) (*bot.Bot, func() error, error) {
	tok, err := flipsight.NewToken(token)
	if err != nil {
		return nil, nil, err
	}
	cl, err := flipsight.NewClient(flipsight.Config{APIURL: apiURL, Token: tok, HTTPClient: hc})
	if err != nil {
		return nil, nil, fmt.Errorf("client: %w", err)
	}
	engLog := log.With("side", "engine")
	pool := engines.NewPool(engines.PoolConfig{Keep: 2 * atOnce, Logger: engLog, New: func() (engines.Engine, error) {
		e, err := jsonline.New(jsonline.Options{Command: engineBin + " engine -threads 1 -hash 16", Logger: engLog})
		if err != nil {
			return nil, err
		}
		return lateEngine{Engine: e, late: &c.engineLate}, nil
	}})
	// The fallbacks are the built-in engine's quick search, as flipbot
	// makes them for an external engine (cmd/flipbot's engineFactory).
	ev, err := eval.Best()
	if err != nil {
		return nil, nil, fmt.Errorf("evaluation: %w", err)
	}
	quick := search.New(search.Options{Threads: 1, HashMB: 4, Eval8: ev.Eval8, Eval10: ev.Eval10})
	b, err := bot.New(bot.Options{
		Client: cl, CPU: "soak", MaxThink: cfg.MaxThink, MaxMatches: atOnce, Logger: log.With("side", "bot"),
		MoveDetail: true, // every move line carries its "source"
		// One process per leg, kept warm (as flipbot's per-leg adapters);
		// the JSON-line adapter reads the wire request.
		Engine: bot.Engines{Name: "flipengine", Wire: true, Provider: engines.PerLeg(pool), Quick: quick},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("bot: %w", err)
	}
	return b, pool.Close, nil
}
