package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/engines/egaroucid/egaroucidtest"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/internal/testutil"
)

// TestRealEgaroucidPlaysEveryMoveAfterTheFirst plays one std match (two
// legs, 60 s clocks) with the real flipbot binary, built here and started
// cold with --egaroucid (the binary FLIPBOT_EGAROUCID names, sized to this
// machine as a user's flipbot would be), against the arena's level-4
// built-in bot. Egaroucid starts when the match is accepted and takes
// seconds to load; in each leg, every move of flipbot's after its first
// one that the engine had to choose must be Egaroucid's (source "engine"
// in flipbot's "move" log lines; "forced" moves need no engine), and the
// match must end without a timeout.
func TestRealEgaroucidPlaysEveryMoveAfterTheFirst(t *testing.T) {
	egaroucid := egaroucidtest.Real(t)
	if testing.Short() {
		t.Skip("builds flipbot and plays a whole match with the real Egaroucid (about 2 minutes); skipped with -short")
	}
	flipbot := filepath.Join(t.TempDir(), "flipbot")
	if out, err := exec.Command("go", "build", "-o", flipbot, "flipbot.dev/flipbot/cmd/flipbot").CombinedOutput(); err != nil {
		t.Fatalf("go build flipbot: %v\n%s", err, out)
	}

	const token = "real-egaroucid-test-token-0123456789"
	srv, err := arena.New(arena.Config{ClockPerLeg: 60 * time.Second, Seed: 22, Bots: []arena.BotConfig{
		{Name: "flipbot", Token: token, Modes: []othello.Mode{othello.Std}},
		{Name: "house", Builtin: true, Level: 4, Modes: []othello.Mode{othello.Std}},
	}})
	require.NoError(t, err)
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	go srv.Run(ctx, 50*time.Millisecond)

	var logs testutil.SyncBuffer
	cmd := exec.CommandContext(ctx, flipbot, "--api", hs.URL+arena.APIPath, "--stream-url", hs.URL+arena.StreamPath,
		"--egaroucid", egaroucid, "--log-format", "json", "--verbose", "--no-records")
	cmd.Env = append(os.Environ(), "FS_BOT_TOKEN="+token)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 20 * time.Second
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Signal(syscall.SIGINT)
			<-exited
		}
	}
	defer stop()

	var id int64
	require.Eventually(t, func() bool {
		if !srv.Online("flipbot") {
			return false
		}
		id, err = srv.Challenge("house", "flipbot", othello.Std)
		return err == nil
	}, time.Minute, 100*time.Millisecond, "flipbot comes online and is challenged; log:\n%s", &logs)
	var res arena.MatchResult
	require.Eventually(t, func() bool {
		res, _ = srv.Result(id)
		return res.Ended
	}, 4*time.Minute, 250*time.Millisecond, "the match ends")
	stop()
	if os.Getenv("FLIPBOT_TEST_LOG") != "" {
		t.Logf("flipbot's log:\n%s", &logs)
	}

	assert.Equal(t, "finished", res.Status)
	assert.NotContains(t, res.FinishReason, "timeout")
	moves, fallbacks, ready := readFlipbotLog(t, logs.String())
	require.NotEmpty(t, moves, "flipbot's move log lines")
	count := map[string]int{}
	deep := 0
	var nodes uint64 // the most of one engine move
	legs := map[int][]flipbotMove{}
	for _, m := range moves {
		count[m.Source]++
		if m.Source == "engine" && m.Depth > 0 {
			deep++
		}
		nodes = max(nodes, m.Nodes)
		legs[m.Leg] = append(legs[m.Leg], m)
	}
	after := 0 // fallbacks after a leg's first chosen move
	for leg, list := range legs {
		slices.SortFunc(list, func(a, b flipbotMove) int { return int(a.Revision - b.Revision) })
		chosen := 0
		for _, m := range list {
			if m.Source == "forced" {
				continue
			}
			if chosen++; chosen > 1 && m.Source != "engine" {
				after++
				assert.Failf(t, "a move after the leg's first is not Egaroucid's",
					"leg %d revision %d: source %s (%s)", leg, m.Revision, m.Source, fallbacks[[2]int64{int64(leg), m.Revision}])
			}
		}
	}
	t.Logf("flipbot --egaroucid, cold start: %d moves: %d engine (%d with a depth), %d forced, %d fallback (%d after a leg's first move); at most %d nodes a move; Egaroucid ready after %v",
		len(moves), count["engine"], deep, count["forced"], count["fallback"], after, nodes, ready)
	assert.Positive(t, deep, "depths in the move log")
}

// flipbotMove is one of flipbot's "move" log lines.
type flipbotMove struct {
	Msg      string `json:"msg"`
	Leg      int    `json:"leg"`
	Revision int64  `json:"revision"`
	Source   string `json:"source"`
	Depth    int    `json:"depth"`
	Nodes    uint64 `json:"nodes"`
	Reason   string `json:"reason"`
	Err      string `json:"err"`
	// Startup is an "egaroucid ready" line's start-up time (slog's JSON
	// handler writes a duration in nanoseconds).
	Startup time.Duration `json:"startup"`
}

// readFlipbotLog returns flipbot's moves, the reasons of its fallbacks by
// leg and revision, and the start-up times of the Egaroucid processes.
func readFlipbotLog(t *testing.T, s string) (moves []flipbotMove, fallbacks map[[2]int64]string, ready []time.Duration) {
	t.Helper()
	fallbacks = map[[2]int64]string{}
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m flipbotMove
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m.Msg {
		case "move":
			moves = append(moves, m)
		case "playing a fallback move":
			fallbacks[[2]int64{int64(m.Leg), m.Revision}] = m.Reason + ": " + m.Err
		case "egaroucid ready":
			ready = append(ready, m.Startup.Round(time.Millisecond))
		}
	}
	return moves, fallbacks, ready
}
