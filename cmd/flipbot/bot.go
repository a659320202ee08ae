package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"time"

	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/external"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/proc"
	"flipbot.dev/flipbot/engines/search"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/wait"
)

// Exit codes of the connector: the official one's (0, 2, 3), and 1 for an
// engine that fails its probe (or another start-up failure) and a third
// signal.
const (
	exitOK         = 0
	exitFailure    = 1
	exitToken      = 2 // FS_BOT_TOKEN missing or rejected (and usage errors, as argparse)
	exitUsage      = 2 // bad flags or arguments (as argparse, the same code as exitToken)
	exitMaxRuntime = 3
)

// errMaxRuntime is the cancellation cause when --max-runtime is reached.
var errMaxRuntime = errors.New("--max-runtime reached")

// runBot runs the connector: flags as the official connector's, token from
// FS_BOT_TOKEN, exit codes 0 (normal end), 1 (an engine that fails its
// probe, another start-up failure), 2 (token missing or rejected), 3
// (--max-runtime reached).
//
// -h and --help print the commands, FS_BOT_TOKEN, the exit codes and the
// flags to stdout, as argparse does (flipbot help).
func runBot(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return connect(args, getenv, stdout, stderr, signalContext)
}

// signalFunc returns the connector's stop requests: ctx is cancelled by
// the first (drain the running matches), quit is closed by the second
// (finish the moves in flight and exit); stop releases them.
type signalFunc func(parent context.Context, log *slog.Logger) (ctx context.Context, quit <-chan struct{}, stop func())

// quitHint is how the owner stops at once, in the stop request's log line.
const quitHint = "send the signal again (Ctrl-C) to exit at once, abandoning them"

// connect is runBot with its outside world injectable (tests).
func connect(args []string, getenv func(string) string, stdout, stderr io.Writer, sigctx signalFunc) int {
	var usage bytes.Buffer // the flag package's text: help, or a usage error's
	cfg, err := config.ParseBot(args, getenv, &usage)
	if errors.Is(err, flag.ErrHelp) {
		writeHelp(stdout, usage.String())
		return exitOK
	}
	_, _ = stderr.Write(usage.Bytes())
	switch {
	case errors.Is(err, config.ErrNoToken):
		fmt.Fprintf(stderr, "flipbot: %v\n", err)
		return exitToken
	case err != nil:
		fmt.Fprintf(stderr, "flipbot: %v\n", err)
		return exitToken
	}
	// The engines share one budget of stderr lines (engines/proc).
	log := proc.WithStderrBudget(newLogger(cfg, stderr), nil)
	ctx, quit, stop := sigctx(context.Background(), log)
	defer stop()

	factory, closeEngines, err := engineFactory(cfg, log)
	if err != nil {
		fmt.Fprintf(stderr, "flipbot: %v\n", err)
		return exitFailure
	}
	defer func() {
		// After the bot: the warm engines of the per-leg adapters.
		if err := closeEngines(); err != nil {
			log.Warn("closing the engines", "err", err)
		}
	}()
	// No rated game with a broken engine: it answers before the bot goes
	// online, or flipbot exits 1 saying why.
	if err := probeEngine(ctx, cfg, log); err != nil {
		if ctx.Err() != nil {
			log.Info("stopped before going online")
			return exitOK
		}
		fmt.Fprintf(stderr, "flipbot: %v\n", err)
		return exitFailure
	}
	client, err := flipsight.NewClient(flipsight.Config{APIURL: cfg.API, StreamURL: cfg.StreamURL,
		Token: cfg.Token, UserAgent: "flipbot (" + runtime.GOOS + "/" + runtime.GOARCH + ")"})
	if err != nil {
		log.Error("FlipSight client", "err", err)
		return exitFailure
	}
	cpu := cfg.CPUName
	if cpu == "" {
		cpu = detectCPU(runtime.NumCPU())
	}
	opts := bot.Options{
		Client: client, Engine: factory, CPU: cpu, OS: osName(),
		MaxThink: cfg.MaxThink, MaxMatches: cfg.MaxMatches, OnceMatch: cfg.OnceMatch,
		NoStream: cfg.NoStream, Logger: log, Ponder: cfg.Ponder,
		Drain: cfg.Drain, QuitHint: quitHint,
		// The full figures of each move at --verbose and in the JSON log;
		// a short line a person reads otherwise.
		MoveDetail: cfg.Verbose || cfg.LogFormat == config.LogJSON,
	}
	if cfg.Drain == 0 {
		opts.Drain = -1 // --drain 0: only the moves in flight
	}
	if ext := externalConfig(cfg, log); ext.Configured() {
		// A failing engine is probed between matches the way it was
		// before going online.
		opts.Probe = ext.Probe
	}
	if cfg.GamesDir != "" {
		// Disk problems are logged and reported by the store, never fatal.
		opts.Records = record.Open(record.Options{Dir: cfg.GamesDir, Logger: log})
		log.Info("keeping game records", "dir", cfg.GamesDir)
	}
	b, err := bot.New(opts)
	if err != nil {
		log.Error("bot", "err", err)
		return exitFailure
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if cfg.MaxRuntime > 0 {
		// --max-runtime is a bound: the running matches are not waited for.
		// The cause is set before the stop, which can end Run at once.
		t := time.AfterFunc(cfg.MaxRuntime, func() { cancel(errMaxRuntime); b.Stop() })
		defer t.Stop()
	}
	quitDone := make(chan struct{})
	defer close(quitDone)
	go func() {
		select {
		case <-quit:
			b.Stop()
		case <-quitDone:
		}
	}()
	err = b.Run(ctx) // engines are closed before Run returns
	switch {
	case flipsight.IsAuth(err):
		fmt.Fprintln(stderr, "flipbot: Bot credential rejected (HTTP 401): check FS_BOT_TOKEN")
		return exitToken
	case err != nil:
		log.Error("bot stopped", "err", err)
		return exitFailure
	case errors.Is(context.Cause(ctx), errMaxRuntime):
		log.Info("--max-runtime reached")
		return exitMaxRuntime
	}
	return exitOK
}

// signalContext is the connector's signalFunc: the first SIGINT/SIGTERM
// cancels ctx (no new matches; the running ones are played to their end,
// at most --drain; the bot logs how many and how to quit at once), the
// second closes quit (the moves in flight are finished, the matches
// abandoned, the records of those that ended written, and flipbot exits),
// a third exits at once with status 1.
func signalContext(parent context.Context, log *slog.Logger) (context.Context, <-chan struct{}, func()) {
	ctx, cancel := context.WithCancel(parent)
	quit := make(chan struct{})
	release := wait.OnStopSignals(
		func(s os.Signal) {
			log.Debug("signal: stopping", "signal", s.String())
			cancel()
		},
		func(s os.Signal) {
			log.Warn("second signal: finishing the moves in flight and exiting; a third exits now", "signal", s.String())
			close(quit)
		},
		func(os.Signal) {
			log.Warn("third signal: exiting now")
			os.Exit(exitFailure)
		})
	return ctx, quit, func() { release(); cancel() }
}

func newLogger(cfg config.Bot, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if cfg.Verbose {
		opts.Level = slog.LevelDebug
	}
	if cfg.LogFormat == config.LogJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// externalConfig is the external engine the flags ask for (Kind None for
// the built-in engine).
func externalConfig(cfg config.Bot, log *slog.Logger) external.Config {
	return external.Config{Engine: cfg.Engine, NBoard: cfg.NBoard, NBoardDepth: cfg.NBoardDepth,
		Edax: cfg.Edax, EdaxEval: cfg.EdaxEval, Egaroucid: cfg.Egaroucid, Threads: cfg.Threads,
		HashMB: cfg.HashMB, Legs: 2 * max(1, cfg.MaxMatches), Name: cfg.EngineName, Logger: log}
}

// probeEngine checks the external engine the flags ask for, through the
// adapter the bot plays with: started and answering a start position of
// every mode it plays within its kind's bound (external.Config.Probe).
// Nothing to check for the built-in engine.
func probeEngine(ctx context.Context, cfg config.Bot, log *slog.Logger) error {
	ext := externalConfig(cfg, log)
	if k, err := ext.Kind(); err != nil || k == external.None {
		return err
	}
	start := time.Now()
	log.Info("checking the engine before going online", "engine", cfg.EngineKind(), "bound", ext.Timeout())
	if err := ext.Probe(ctx); err != nil {
		return err
	}
	log.Info("the engine answered", "engine", cfg.EngineKind(), "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// quickHashMB is the table of the built-in engine that makes an external
// engine's fallbacks (bot.Engines.Quick): searches of at most 50 ms.
const quickHashMB = 4

// engineFactory builds the engines the flags ask for: an external
// adapter's provider (engines/external), or the built-in engine shared by
// every match when no engine flag is given. done closes what the provider
// keeps warm; call it after the bot has stopped.
func engineFactory(cfg config.Bot, log *slog.Logger) (f bot.Engines, done func() error, err error) {
	none := func() error { return nil }
	ext := externalConfig(cfg, log)
	kind, err := ext.Kind()
	if err != nil {
		return bot.Engines{}, none, err
	}
	ev, err := eval.ByName(cfg.Eval)
	if err != nil {
		return bot.Engines{}, none, fmt.Errorf("--eval: %w", err)
	}
	if kind == external.None {
		eng := search.New(search.Options{Threads: cfg.Threads, HashMB: cfg.HashMB, Eval8: ev.Eval8, Eval10: ev.Eval10,
			Logger: log.With("engine", "search")})
		name := cfg.EngineName
		if name == "" {
			name = eng.Name()
		}
		return bot.Engines{Name: name, Provider: engines.Shared(eng), Quick: eng}, eng.Close, nil
	}
	if err := ext.Check(); err != nil {
		return bot.Engines{}, none, err
	}
	// The moves the external engine is not asked for or could not make
	// (the clock's panic mode, its failures) are the built-in engine's
	// quick search rather than one ply: one thread, a small table.
	quick := search.New(search.Options{Threads: 1, HashMB: quickHashMB, Eval8: ev.Eval8, Eval10: ev.Eval10,
		Logger: log.With("engine", "quick")})
	// An --engine engine keeps the spec's budget_ms itself and reads the
	// wire request; the others are timed by the bot's clock plan. Per-leg
	// engines are kept warm for two legs of each match at once.
	spec := kind == external.JSONLine
	provider, done := ext.Provider(2 * max(1, cfg.MaxMatches))
	f = bot.Engines{Name: cfg.EngineName, Provider: provider, SpecTimed: spec, Wire: spec, Quick: quick}
	for _, m := range othello.AllModes() {
		if ext.Supports(m) {
			f.Modes = append(f.Modes, m)
		}
	}
	if f.Name == "" {
		// Never the command or a path (the spec forbids them there).
		f.Name = map[external.Kind]string{external.JSONLine: "custom (JSON line)", external.NBoard: "NBoard engine",
			external.Edax: "Edax", external.Egaroucid: "Egaroucid"}[kind]
	}
	// The official connector reports practice only for its practice engine.
	f.Practice = kind == external.JSONLine && strings.Contains(cfg.Engine, "bot_match_example_engine")
	return f, done, nil
}

func osName() string {
	switch runtime.GOOS {
	case "linux":
		return "Linux"
	case "darwin":
		return "Darwin"
	case "windows":
		return "Windows"
	}
	return runtime.GOOS
}
