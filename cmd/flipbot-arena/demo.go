package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/engines/othello"
)

const (
	demoBot     = "flipbot-demo"
	demoBuiltin = "house"
)

// runDemo starts the arena on loopback, starts flipbot (built-in engine)
// against it, lets a built-in bot challenge it and shows the match until it
// ends. When flipbot cannot play (missing, or exits before taking the
// match), it says so and lets the arena's own spec test client play
// instead, so the demo still shows a match.
func runDemo(args []string, stdout, stderr io.Writer) int {
	stdout = &lockedWriter{w: stdout} // the log, flipbot's output and the demo's lines
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	setUsage(fs, stderr, "flipbot-arena demo [--flipbot PATH] [--mode MODE] [--games-dir DIR] [flags]")
	flipbot := fs.String("flipbot", "bin/flipbot", "path of the flipbot binary")
	modeName := fs.String("mode", "std", "game of the demo match")
	clockMS := fs.Int("clock-ms", 30000, "each colour's time per leg, in ms (the site uses 60000; shorter keeps the demo brief)")
	level := fs.Int("level", arena.DefaultBuiltinLevel, "strength of the built-in challenger (0 random, 1 greedy, 2-59 search depth, 60 full)")
	listen := fs.String("listen", "127.0.0.1:0", "address of the arena (loopback)")
	hold := fs.Duration("hold", 0, "keep the arena (and its page) up this long after the match")
	gamesDir := fs.String("games-dir", "", "keep flipbot's game records of the demo in `DIR` (default: a temporary directory, removed at the end, so that the demo never writes to the owner's own store; make demo DEMO_GAMES_DIR=DIR)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	mode, err := othello.ParseMode(*modeName)
	if err != nil || *clockMS <= 0 {
		fmt.Fprintln(stderr, "flipbot-arena demo: need a valid --mode and --clock-ms > 0")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	token := randomToken()
	log := slog.New(slog.NewTextHandler(stdout, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: dropTime}))
	srv, err := arena.New(arena.Config{
		Logger:      log,
		ClockPerLeg: time.Duration(*clockMS) * time.Millisecond,
		Bots: []arena.BotConfig{
			{Name: demoBot, Token: token, Modes: othello.AllModes()},
			{Name: demoBuiltin, Builtin: true, Level: *level, Modes: othello.AllModes()},
		},
	})
	if err != nil {
		fmt.Fprintf(stderr, "flipbot-arena demo: %v\n", err)
		return 1
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "flipbot-arena demo: %v\n", err)
		return 1
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	go srv.Run(ctx, 100*time.Millisecond)
	base := "http://" + ln.Addr().String()
	printURLs(stdout, base)
	fmt.Fprintf(stdout, "Watch the match live at %s/\n\n", base)

	// flipbot, or the fallback client.
	played := make(chan error, 1)
	var cmd *exec.Cmd
	defer func() {
		// flipbot ends before its games directory goes.
		if cmd != nil && cmd.Process != nil {
			_ = cmd.Process.Signal(os.Interrupt)
			select {
			case <-played:
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
			}
		}
	}()
	if _, statErr := os.Stat(*flipbot); statErr == nil {
		dir := *gamesDir
		if dir == "" {
			tmp, err := os.MkdirTemp("", "flipbot-demo-games-")
			if err != nil {
				fmt.Fprintf(stderr, "flipbot-arena demo: %v\n", err)
				return 1
			}
			defer os.RemoveAll(tmp)
			dir = tmp
			fmt.Fprintf(stdout, "demo: flipbot keeps the demo's games in %s, removed at the end (--games-dir DIR, or make demo DEMO_GAMES_DIR=DIR, keeps them)\n", dir)
		} else {
			fmt.Fprintf(stdout, "demo: flipbot keeps the demo's games in %s\n", dir)
		}
		cmd = exec.CommandContext(ctx, *flipbot, "--api", base+arena.APIPath, "--stream-url", base+arena.StreamPath,
			"--engine-name", "flipbot built-in", "--games-dir", dir)
		cmd.Env = append(os.Environ(), config.TokenEnv+"="+token)
		cmd.Stdout = prefixWriter(stdout, "flipbot | ")
		cmd.Stderr = prefixWriter(stdout, "flipbot | ")
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		cmd.WaitDelay = 3 * time.Second
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(stdout, "demo: cannot start %s: %v\n", *flipbot, err)
			cmd = nil
		} else {
			fmt.Fprintf(stdout, "demo: started %s (built-in engine) against the arena\n", *flipbot)
			go func() { played <- cmd.Wait() }()
		}
	} else {
		fmt.Fprintf(stdout, "demo: %s not found\n", *flipbot)
	}

	// Challenge as soon as the bot is online; fall back when flipbot gives up.
	var id int64
	fallback := func(why string) {
		fmt.Fprintf(stdout, "demo: %s — flipbot cannot play yet, so the arena's minimal API player (flipsight.Client with the built-in search engine at full strength) plays for %s instead, to show the arena working\n", why, demoBot)
		cmd = nil
		eng := arena.NewEngines(0, 0).At(arena.LevelMax)
		go func() {
			played <- arena.PlayOverAPI(ctx, base+arena.APIPath, base+arena.StreamPath, token, eng, 100*time.Millisecond, nil)
		}()
	}
	if cmd == nil {
		fallback("no flipbot binary")
	}
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	deadline := time.Now().Add(30 * time.Second)
	for id == 0 {
		select {
		case <-ctx.Done():
			return 1
		case err := <-played:
			if cmd != nil {
				fallback(fmt.Sprintf("flipbot exited before the match (%v)", exitText(err)))
				continue
			}
			fmt.Fprintf(stdout, "demo: the fallback client stopped: %v\n", err)
			return 1
		case <-t.C:
		}
		if cmd != nil && time.Now().After(deadline) {
			fmt.Fprintln(stdout, "demo: flipbot did not come online within 30 s")
			_ = cmd.Process.Signal(os.Interrupt)
			deadline = time.Now().Add(time.Hour)
			continue
		}
		if n, err := srv.Challenge(demoBuiltin, demoBot, mode); err == nil {
			id = n
			fmt.Fprintf(stdout, "demo: %s challenged %s to a %s match (#%d)\n", demoBuiltin, demoBot, mode, id)
		}
	}

	ch, unwatch := srv.Watch()
	defer unwatch()
	for {
		r, ok := srv.Result(id)
		if !ok {
			fmt.Fprintln(stdout, "demo: the match vanished")
			return 1
		}
		if r.Ended {
			fmt.Fprintf(stdout, "\ndemo: match #%d %s (%s): %s %d – %s %d, %s\n", id, r.Status, r.FinishReason,
				demoBuiltin, r.Totals[0], demoBot, r.Totals[1], winnerText(r))
			break
		}
		select {
		case <-ctx.Done():
			return 1
		case <-ch:
		case <-time.After(time.Second):
		}
	}
	if *hold > 0 {
		fmt.Fprintf(stdout, "demo: the page stays up at %s/ for %s (Ctrl-C to end); the match's replay: %s%s\n", base, *hold, base, arena.ReplayPath(id))
		select {
		case <-ctx.Done():
		case <-time.After(*hold):
		}
	}
	return 0
}

func winnerText(r arena.MatchResult) string {
	switch r.Winner {
	case 0:
		return demoBuiltin + " wins"
	case 1:
		return demoBot + " wins"
	}
	return "no winner"
}

func exitText(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Sprintf("exit code %d", ee.ExitCode())
	}
	if err == nil {
		return "exit code 0"
	}
	return err.Error()
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "fsbm_demo_" + hex.EncodeToString(b)
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p whole under the lock.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lineWriter writes each line of a child's output with a prefix.
type lineWriter struct {
	w      io.Writer
	prefix string
	buf    []byte
}

func prefixWriter(w io.Writer, prefix string) io.Writer { return &lineWriter{w: w, prefix: prefix} }

// Write prints every complete line with the prefix.
func (l *lineWriter) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		fmt.Fprintf(l.w, "%s%s\n", l.prefix, l.buf[:i])
		l.buf = l.buf[i+1:]
	}
	return len(p), nil
}
