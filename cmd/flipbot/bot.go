package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
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
)

// Exit codes of the connector, as the official one's.
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
// FS_BOT_TOKEN, exit codes 0 (normal end), 2 (token missing or rejected),
// 3 (--max-runtime reached).
func runBot(args []string) int {
	return connect(args, os.Getenv, os.Stderr, signalContext)
}

// connect is runBot with its outside world injectable (tests).
func connect(args []string, getenv func(string) string, stderr io.Writer,
	sigctx func(context.Context, *slog.Logger) (context.Context, func())) int {
	cfg, err := config.ParseBot(args, getenv, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, config.ErrNoToken):
		fmt.Fprintf(stderr, "flipbot: %v\n", err)
		return exitToken
	case err != nil:
		fmt.Fprintf(stderr, "flipbot: %v\n", err)
		return exitToken
	}
	// The engines share one budget of stderr lines (engines/proc).
	log := proc.WithStderrBudget(newLogger(cfg, stderr), nil)

	factory, err := engineFactory(cfg, log)
	if err != nil {
		log.Error("engine", "err", err)
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
		cpu = detectCPU()
	}
	opts := bot.Options{
		Client: client, Engine: factory, CPU: cpu, OS: osName(),
		MaxThink: cfg.MaxThink, MaxMatches: cfg.MaxMatches, OnceMatch: cfg.OnceMatch,
		NoStream: cfg.NoStream, Logger: log, Ponder: cfg.Ponder,
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

	ctx, stop := sigctx(context.Background(), log)
	defer stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if cfg.MaxRuntime > 0 {
		t := time.AfterFunc(cfg.MaxRuntime, func() { cancel(errMaxRuntime) })
		defer t.Stop()
	}
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

// signalContext cancels on the first SIGINT/SIGTERM (drain) and exits at
// once on the second.
func signalContext(parent context.Context, log *slog.Logger) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			log.Info("signal: finishing the moves in flight; send it again to exit at once", "signal", s.String())
			cancel()
		case <-done:
			return
		}
		select {
		case <-ch:
			log.Warn("second signal: exiting now")
			os.Exit(exitFailure)
		case <-done:
		}
	}()
	return ctx, func() { signal.Stop(ch); close(done); cancel() }
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

// engineFactory builds the engine the flags ask for: an external adapter,
// or the built-in engine when no engine flag is given.
func engineFactory(cfg config.Bot, log *slog.Logger) (bot.EngineFactory, error) {
	ext := external.Config{Engine: cfg.Engine, NBoard: cfg.NBoard, NBoardDepth: cfg.NBoardDepth,
		Edax: cfg.Edax, EdaxEval: cfg.EdaxEval, Egaroucid: cfg.Egaroucid, Threads: cfg.Threads,
		HashMB: cfg.HashMB, Legs: 2 * max(1, cfg.MaxMatches), Name: cfg.EngineName, Logger: log}
	kind, err := ext.Kind()
	if err != nil {
		return bot.EngineFactory{}, err
	}
	if kind == external.None {
		ev, err := eval.ByName(cfg.Eval)
		if err != nil {
			return bot.EngineFactory{}, fmt.Errorf("--eval: %w", err)
		}
		eng := search.New(search.Options{Threads: cfg.Threads, HashMB: cfg.HashMB, Eval8: ev.Eval8, Eval10: ev.Eval10,
			Logger: log.With("engine", "search")})
		name := cfg.EngineName
		if name == "" {
			name = eng.Name()
		}
		return bot.EngineFactory{Name: name, Scope: bot.Shared,
			New: func() (engines.Engine, error) { return eng, nil }}, nil
	}
	if err := ext.Check(); err != nil {
		return bot.EngineFactory{}, err
	}
	// An --engine engine keeps the spec's budget_ms itself; the others are
	// timed by the bot's clock plan.
	f := bot.EngineFactory{Name: cfg.EngineName, Scope: bot.PerMatch, New: ext.New, SpecTimed: kind == external.JSONLine}
	if ext.PerLeg() {
		f.Scope = bot.PerLeg
	}
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
	return f, nil
}

// detectCPU returns the CPU's model name from /proc/cpuinfo (Linux), or
// the architecture.
func detectCPU() string {
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		var model, hw string
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			switch k {
			case "model name":
				if model == "" {
					model = v
				}
			case "Model", "Hardware":
				if hw == "" {
					hw = v
				}
			}
		}
		name := model
		if hw != "" {
			name = hw
		}
		if name != "" {
			return fmt.Sprintf("%s (%d cores)", name, runtime.NumCPU())
		}
	}
	return fmt.Sprintf("%s (%d cores)", runtime.GOARCH, runtime.NumCPU())
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
