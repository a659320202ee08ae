package web

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/othello"
)

// TestListMemory prints what 64 concurrent game-list requests cost the
// process on a store of small valid games filling the default 50 MB cap:
// its RSS before and at the peak, and the bytes allocated per request. It
// is a measurement, not a check, and runs only when asked:
//
//	FLIPBOT_LISTMEM=1 go test -run TestListMemory -v ./appliance/web/
//
// FLIPBOT_LISTMEM_DIR keeps the generated store between runs (it is made
// when empty). Linux only (it reads /proc/self/status and resets the peak
// through /proc/self/clear_refs).
func TestListMemory(t *testing.T) {
	if os.Getenv("FLIPBOT_LISTMEM") == "" {
		t.Skip("a measurement: set FLIPBOT_LISTMEM=1")
	}
	dir := os.Getenv("FLIPBOT_LISTMEM_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	games, size := writeSmallGames(t, dir, record.DefaultCapBytes-512<<10)
	start := time.Now()
	store := record.Open(record.Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	st := store.Status()
	t.Logf("store: %d games, %.1f MB in %d files (generated %d, %.1f MB); opened in %v",
		st.Games, float64(st.Bytes)/1e6, st.Files, games, float64(size)/1e6, time.Since(start).Round(time.Millisecond))
	h, err := New(Config{Hub: state.NewHub(nil), Backend: stubBackend{}, Games: store, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	for _, path := range []string{"/api/games?limit=1", "/api/games?limit=500", "/games", "/games?opponent=zz"} {
		for _, clients := range []int{8, 64} {
			listRound(t, client, srv.URL, path, clients, 4)
		}
	}
}

// listRound runs clients goroutines that each GET base+path rounds times,
// and logs the RSS before and at the peak, the bytes allocated a request
// (over every answer, 429s included) and the answers' statuses.
func listRound(t *testing.T, client *http.Client, base, path string, clients, rounds int) {
	runtime.GC()
	debug.FreeOSMemory()
	require.NoError(t, os.WriteFile("/proc/self/clear_refs", []byte("5"), 0))
	before := procStatus(t, "VmRSS")
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for range rounds {
				resp, err := client.Get(base + path)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				codes[resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	runtime.ReadMemStats(&ms1)
	peak := procStatus(t, "VmHWM")
	n := clients * rounds
	t.Logf("%-24s %2d clients × %d: RSS %4d → peak %5d MB; %8.1f KB allocated a request; %v; statuses %v",
		path, clients, rounds, before>>10, peak>>10, float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(n)/1e3, took.Round(time.Millisecond), codes)
}

// procStatus returns a field of /proc/self/status in KiB.
func procStatus(t *testing.T, field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// writeSmallGames fills dir (when it has no games file yet) with games
// files of small valid games, about size bytes in all: one short std game
// copied under new ids and end times, each a different opponent among
// 500. It returns the games and bytes written (0 when dir had them).
func writeSmallGames(t *testing.T, dir string, size int64) (int, int64) {
	if m, _ := filepath.Glob(filepath.Join(dir, "games-*.jsonl")); len(m) > 0 {
		return 0, 0
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	base := sampleGame(t, othello.Std, 1, 1, "Greedy")
	// A short game: the leg stopped after its first four moves.
	short := shortGame(t, base)
	var (
		total int64
		n     int
		file  *os.File
		w     *bufio.Writer
		inSeg int64
		seg   int
	)
	const segBytes = 6 << 20 // under the store's eighth of 50 MB
	for total < size {
		if file == nil || inSeg >= segBytes {
			if file != nil {
				require.NoError(t, w.Flush())
				require.NoError(t, file.Close())
			}
			seg++
			var err error
			file, err = os.Create(filepath.Join(dir, fmt.Sprintf("games-%06d.jsonl", seg)))
			require.NoError(t, err)
			w, inSeg = bufio.NewWriter(file), 0
		}
		g := short
		g.MatchID = int64(n + 1)
		g.Ended = short.Ended.Add(time.Duration(n) * time.Second)
		g.ID = record.MakeID(g.MatchID, g.Leg, g.Ended)
		g.White.Name = fmt.Sprintf("bot%03d", n%500)
		line, err := g.MarshalLine()
		require.NoError(t, err)
		_, err = w.Write(line)
		require.NoError(t, err)
		total += int64(len(line))
		inSeg += int64(len(line))
		n++
	}
	require.NoError(t, w.Flush())
	require.NoError(t, file.Close())
	return n, total
}

// shortGame is g stopped after its first four moves.
func shortGame(t *testing.T, g record.Game) record.Game {
	g.Moves = g.Moves[:4]
	pos, err := g.Replay()
	last := pos[len(pos)-1]
	b, w := last.Count()
	g.Discs, g.ResultDiscs = [2]int{b, w}, [2]int{b, w}
	g.LegStatus = "stopped"
	g.Winner = record.LegWinner(g.Mode, g.ResultDiscs)
	g.Result = record.LegResult(g.Winner, g.MyColor)
	g.MatchResult = ""
	g.Reason = "stopped"
	g.Schema = record.Schema
	if err == nil {
		err = g.Check()
	}
	require.NoError(t, err)
	line, err := g.MarshalLine()
	require.NoError(t, err)
	_, err = record.ParseLine(bytes.TrimSpace(line))
	require.NoError(t, err)
	return g
}
