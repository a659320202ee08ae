// Package enginetest has test helpers shared by the adapter packages: a
// goroutine-leak check, a log capture, test positions, and the one fake
// engine program of their tests: a test binary that doubles as a scripted
// engine ([RunFake], [Fake]) speaking the JSON-line, NBoard or Edax
// protocol.
//
// Files: enginetest.go (the helpers and the plumbing of a fake:
// [RunFakeOrTests], [FakeCommand]), fake.go ([Protocol], [RunFake],
// [Fake]), fake_nboardloop.go (the one line loop of the fakes that speak
// NBoard's protocol: the position, the search in progress, quit), and
// fake_jsonline.go, fake_nboard.go and fake_edax.go (each protocol's
// script: its replies). It may import engines, engines/othello and
// engines/ggf (the games NBoard's `set game` sends); only tests and the
// fakes of other test packages (egaroucidtest) import it.
package enginetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// NoLeak records the number of goroutines and, at cleanup, fails the test
// if it has not come back down within a few seconds. Tests using it must
// not run in parallel.
func NoLeak(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutine leak: %d before, %d after\n%s", before, n, buf)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// Log is a concurrency-safe log capture.
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns everything logged so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Contains reports whether the log contains s.
func (l *Log) Contains(s string) bool { return strings.Contains(l.String(), s) }

// Logger returns a debug-level text logger writing to l.
func (l *Log) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Positions returns std positions along a fixed game from the start, each
// with at least two legal moves for the side to move.
func Positions(t testing.TB, n int) []othello.Position {
	t.Helper()
	var out []othello.Position
	pos := othello.New(othello.Std)
	for len(out) < n {
		legal := pos.LegalMoves()
		if len(legal) >= 2 {
			out = append(out, pos)
		}
		move := othello.Pass
		if len(legal) > 0 {
			move = legal[len(legal)/2]
		}
		next, err := pos.Play(move)
		if err != nil {
			t.Fatalf("test game: %v", err)
		}
		if next.GameOver() {
			t.Fatalf("test game ended after %d positions", len(out))
		}
		pos = next
	}
	return out
}

// RunFakeOrTests is an adapter package's TestMain: a test binary re-run
// with env=1 (and without -test. flags, which the fuzzer's re-runs carry)
// is a scripted fake engine, run by fake with the process's arguments;
// otherwise it sets env=1 for the engines that the tests start from this
// binary and runs the tests. Under the race detector every fake would sleep
// 1 s at exit without atexit_sleep_ms=0, so GORACE gets it.
func RunFakeOrTests(m *testing.M, env string, fake func(args []string) int) {
	if os.Getenv(env) == "1" && (len(os.Args) < 2 || !strings.HasPrefix(os.Args[1], "-test.")) {
		os.Exit(fake(os.Args[1:]))
	}
	// Engines get only an allow-list of our environment (proc.EngineEnv):
	// the fake's switch and GORACE are passed by name in
	// proc.ExtraEnvVar (spelled out: proc's tests import this package).
	const extraEnvVar = "FLIPBOT_ENGINE_ENV"
	extra := strings.Trim(os.Getenv(extraEnvVar)+","+env+",GORACE", ",")
	for k, v := range map[string]string{env: "1", "GORACE": strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0"), extraEnvVar: extra} {
		if err := os.Setenv(k, v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// FakeCommand returns the command line that runs this test binary (as a
// fake engine) with args, each quoted for proc.SplitCommand.
func FakeCommand(t testing.TB, args ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := "'" + exe + "'"
	for _, a := range args {
		cmd += " '" + a + "'"
	}
	return cmd
}

// Request is a request for pos with a full minute on the clock and the
// given budget, both as the clock plan's (Budget) and as the spec's per-move
// cap (Cap), so that engines timed by flipbot and --engine ones alike answer
// within it.
func Request(pos othello.Position, budget time.Duration) engines.Request {
	return engines.Request{Position: pos, Remaining: 60 * time.Second, Budget: budget, Cap: budget}
}

// Supervised is an adapter that reports its process starts.
type Supervised interface {
	engines.Engine
	Stats() (starts, crashes int)
}

// MoveInBackground asks e for a move from the start position with a
// minute's budget in a goroutine, waits until e has started its process,
// and returns the channel that gets Move's error.
func MoveInBackground(t testing.TB, ctx context.Context, e Supervised) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := e.Move(ctx, Request(othello.New(othello.Std), time.Minute))
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if s, _ := e.Stats(); s >= 1 {
			return done
		}
		if time.Now().After(deadline) {
			t.Fatal("the engine's process never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// SlowStartKept checks an adapter whose program is still starting: it asks e
// for req until a move is answered; every move before that must end with an
// error wrapping engines.ErrNotReady about wait after it was asked (within a
// quarter second), while running reports the process still there; the answer
// is want; and the process was started once and never crashed.
func SlowStartKept(t *testing.T, e Supervised, req engines.Request, wait time.Duration, running func() bool, want int) {
	t.Helper()
	notReady := 0
	for move := 0; ; move++ {
		if move >= 6 {
			t.Fatalf("never ready after %d moves", move)
		}
		asked := time.Now()
		res, err := e.Move(context.Background(), req)
		took := time.Since(asked)
		if err == nil {
			if res.Move != want {
				t.Errorf("answered %d, want %d", res.Move, want)
			}
			break
		}
		if !errors.Is(err, engines.ErrNotReady) {
			t.Fatalf("move %d: %v, want an error wrapping engines.ErrNotReady", move, err)
		}
		notReady++
		if d := took - wait; d < -250*time.Millisecond || d > 250*time.Millisecond {
			t.Errorf("move %d: the wait took %v, want about %v", move, took, wait)
		}
		if !running() {
			t.Errorf("move %d: the starting process was killed", move)
		}
	}
	if notReady == 0 {
		t.Error("no move found the program starting")
	}
	if starts, crashes := e.Stats(); starts != 1 || crashes != 0 {
		t.Errorf("%d starts and %d crashes, want one process started once", starts, crashes)
	}
}
