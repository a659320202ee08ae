package bot

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/proc"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock/clocktest"
	"flipbot.dev/flipbot/internal/logagg"
	"flipbot.dev/flipbot/internal/testutil"
)

// floodChildEnv makes the test binary an engine that writes
// floodChildLines lines to its stderr and exits
// (TestFloodChild).
const (
	floodChildEnv   = "FLIPBOT_TEST_STDERR_FLOOD"
	floodChildLines = 5000
)

// TestFloodChild is the flooding engine of
// TestFloodsLeaveTheMinutelyLineInTheLog when run as its child; a test
// that passes otherwise.
func TestFloodChild(t *testing.T) {
	if os.Getenv(floodChildEnv) == "" {
		return
	}
	w := bufio.NewWriter(os.Stderr)
	for i := range floodChildLines {
		fmt.Fprintf(w, "noise %d\n", i)
	}
	w.Flush()
	os.Exit(0)
}

// TestFloodsLeaveTheMinutelyLineInTheLog plays ten minutes (on a fake
// clock) of every flood a hostile server and a flooding engine can make,
// into a ring of gokrazy's 100 lines, with the line the appliance logs
// every minute while setup is needed (the pairing code): each minute
// 2,000 running matches over the limit (each id new), 100 malformed
// objects, 100 failed polls, 100 failed accepts, 100 bad stream lines and
// an engine restarted twice, each start writing 5,000 stderr lines. The
// pairing code stays among the last 100 lines at every step. Before,
// each match id over the limit wrote a line, and each engine start a
// burst of 100 stderr lines: the code was gone within the first minute.
func TestFloodsLeaveTheMinutelyLineInTheLog(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 engine processes")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	ring := testutil.NewLineRing(100)
	clock := clocktest.New(time.Unix(1_800_000_000, 0))
	root := slog.New(slog.NewTextHandler(ring, nil))
	b := floodBot(t, ring, clock)
	b.serverWarn = logagg.New(root, ServerWarnInterval, clock)
	engines := proc.WithStderrBudget(root, clock)

	const code = "pairing_code=314159"
	check := func(when string) {
		t.Helper()
		if !ring.Contains(code) {
			t.Fatalf("%s: the pairing code is gone from the last 100 lines", when)
		}
	}
	id := int64(0)
	for minute := range 10 {
		// The appliance's reminder (appliance.PairingCodeLogInterval).
		root.Info("setup needed: open the page and type the pairing code", "pairing_code", "314159", "why", "reminder")
		for step := range 6 { // ten seconds each
			for range 2000 / 6 {
				id++
				b.observe(runningMatch(t, id), 1800000000000, time.Now())
			}
			refused := make([]error, 100/6)
			for i := range refused {
				refused[i] = fmt.Errorf("match %d: %w", i, errors.New("board_size out of range"))
			}
			b.onPoll(pollResult{resp: &flipsight.PollResponse{Refused: refused}})
			for range 100 / 6 {
				b.onPoll(pollResult{err: errors.New("HTTP 503")})
				b.onAccept(acceptResult{id: -1000 - id, err: errors.New("HTTP 500")})
				b.serverWarn.Warn("skipping a bad stream line", "err", flipsight.ErrBadEvent)
			}
			check(fmt.Sprintf("minute %d, step %d, the server's flood", minute, step))
			if step%3 == 0 { // an engine restarted twice a minute
				p, err := proc.Start(proc.Config{Path: exe, Args: []string{"-test.run=^TestFloodChild$"},
					Env: append(os.Environ(), floodChildEnv+"=1"), Name: "flood", Logger: engines.With("leg", step)})
				require.NoError(t, err)
				<-p.Done()
				p.Stop()
				check(fmt.Sprintf("minute %d, step %d, the engine's flood", minute, step))
			}
			clock.Advance(10 * time.Second)
			check(fmt.Sprintf("minute %d, step %d, the interval's counts", minute, step))
		}
	}
	t.Logf("lines written in ten minutes: %d", ring.Total())
	assert.Less(t, ring.Total(), 10*100, "fewer than 100 lines a minute")
}
