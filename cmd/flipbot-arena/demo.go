package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
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
	"syscall"
	"time"

	"flipbot.dev/flipbot/arena"
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
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flipbot := fs.String("flipbot", "bin/flipbot", "path of the flipbot binary")
	modeName := fs.String("mode", "std", "game of the demo match")
	clockMS := fs.Int("clock-ms", 30000, "each colour's time per leg, in ms (the site uses 60000; shorter keeps the demo brief)")
	level := fs.Int("level", arena.DefaultBuiltinLevel, "strength of the built-in challenger (0 random, 1 greedy, 2-59 search depth, 60 full)")
	listen := fs.String("listen", "127.0.0.1:0", "address of the arena (loopback)")
	hold := fs.Duration("hold", 0, "keep the arena (and its page) up this long after the match")
	if err := fs.Parse(args); err != nil {
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
	if _, statErr := os.Stat(*flipbot); statErr == nil {
		cmd = exec.CommandContext(ctx, *flipbot, "--api", base+arena.APIPath, "--stream-url", base+arena.StreamPath, "--engine-name", "flipbot built-in")
		cmd.Env = append(os.Environ(), "FS_BOT_TOKEN="+token)
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
		fmt.Fprintf(stdout, "demo: %s — flipbot cannot play yet, so the arena's own spec test client plays for %s (first legal move) to show the arena working\n", why, demoBot)
		cmd = nil
		go func() { played <- playSimple(ctx, base, token) }()
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
		fmt.Fprintf(stdout, "demo: the page stays up at %s/ for %s (Ctrl-C to end)\n", base, *hold)
		select {
		case <-ctx.Done():
		case <-time.After(*hold):
		}
	}
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-played:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
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

// playSimple is a minimal API client: it polls once a second, accepts
// challenges and plays the first legal move (or -1) in every leg where it
// is to move. It is the demo's stand-in while flipbot cannot play.
func playSimple(ctx context.Context, base, token string) error {
	hc := &http.Client{Timeout: 10 * time.Second}
	call := func(body any, out any) error {
		b, _ := json.Marshal(body)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+arena.APIPath, bytes.NewReader(b))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if out != nil {
			return json.NewDecoder(resp.Body).Decode(out)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		var poll struct {
			Bot     struct{ ID int64 } `json:"bot"`
			Matches []struct {
				ID     int64  `json:"id"`
				BotB   int64  `json:"bot_b"`
				Status string `json:"status"`
				State  *struct {
					Legs []struct {
						Turn             int   `json:"turn"`
						BlackParticipant int   `json:"black_participant"`
						Revision         int64 `json:"revision"`
						Status           string
						LegalMoves       []int `json:"legal_moves"`
					} `json:"legs"`
				} `json:"state"`
			} `json:"matches"`
		}
		if err := call(map[string]any{"action": "agent_poll", "environment": map[string]any{"engine": "arena demo client"}}, &poll); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		for _, m := range poll.Matches {
			if m.Status == "pending" && m.BotB == poll.Bot.ID {
				_ = call(map[string]any{"action": "agent_accept", "match_id": m.ID}, nil)
			}
			if m.Status != "running" || m.State == nil {
				continue
			}
			me := 0
			if m.BotB == poll.Bot.ID {
				me = 1
			}
			for li, l := range m.State.Legs {
				color := 2
				if l.BlackParticipant == me {
					color = 1
				}
				if l.Status != "active" || l.Turn != color {
					continue
				}
				mv := -1
				if len(l.LegalMoves) > 0 {
					mv = l.LegalMoves[0]
				}
				_ = call(map[string]any{"action": "agent_move", "match_id": m.ID, "leg": li, "revision": l.Revision, "move": mv}, nil)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
