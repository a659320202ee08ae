package external

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/egaroucid/egaroucidtest"
	"flipbot.dev/flipbot/engines/internal/enginetest"
	"flipbot.dev/flipbot/engines/othello"
)

// probeEngineArg makes the test binary a JSON-line engine that checks each
// request against the spec's fields (エンジンへの要求のフィールド) and
// answers the first legal move, or says on stderr what is wrong and exits 3.
const probeEngineArg = "probe-spec-engine"

func TestMain(m *testing.M) {
	if len(os.Args) >= 2 && os.Args[1] == probeEngineArg {
		os.Exit(probeSpecEngine())
	}
	egaroucidtest.Main(m)
}

func probeSpecEngine() int {
	fields := []string{"board", "color", "legal_moves", "game_mode", "board_size", "blocked_squares", "placed",
		"remaining_ms", "match_id", "leg", "revision", "history", "round_no", "room_created_at", "budget_ms"}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			fmt.Fprintln(os.Stderr, "not a JSON object:", err)
			return 3
		}
		var bad []string
		for _, k := range fields {
			if _, ok := raw[k]; !ok {
				bad = append(bad, "field "+k+" missing")
			}
		}
		if len(raw) != len(fields) {
			bad = append(bad, fmt.Sprintf("%d fields", len(raw)))
		}
		r, err := othello.ParseEngineRequest(sc.Bytes())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		if r.MatchID == 0 || r.Leg != 0 || r.Revision < 0 {
			bad = append(bad, fmt.Sprintf("match_id %d leg %d revision %d", r.MatchID, r.Leg, r.Revision))
		}
		if r.BudgetMS <= 0 || r.BudgetMS > r.RemainingMS-750 {
			bad = append(bad, fmt.Sprintf("budget_ms %d with remaining_ms %d", r.BudgetMS, r.RemainingMS))
		}
		for _, k := range []string{"round_no", "room_created_at", "blocked_squares", "history"} {
			if k == "round_no" || k == "room_created_at" {
				if string(raw[k]) != "null" {
					bad = append(bad, k+" not null in a bot match")
				}
			} else if !strings.HasPrefix(string(raw[k]), "[") {
				bad = append(bad, k+" is not an array")
			}
		}
		pos, err := r.Position()
		if err != nil {
			bad = append(bad, err.Error())
		} else if !slices.Equal(r.LegalMoves, pos.LegalMoves()) {
			bad = append(bad, "legal_moves differ from the rules'")
		}
		if len(bad) > 0 || len(r.LegalMoves) == 0 {
			fmt.Fprintln(os.Stderr, "bad request:", strings.Join(bad, "; "))
			return 3
		}
		fmt.Fprintln(os.Stderr, "probe", r.GameMode)
		fmt.Printf("{\"move\": %d}\n", r.LegalMoves[0])
	}
	return 0
}

// script writes an executable shell script (mode perm) and returns its path.
func script(t *testing.T, body string, perm os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "engine")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), perm))
	return p
}

func TestProbeFindsABrokenEngine(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	enginetest.NoLeak(t)
	tests := []struct {
		name    string
		cfg     func(t *testing.T) Config
		flag    string
		want    []string
		maxTime time.Duration
	}{
		{"missing program", func(t *testing.T) Config { return Config{Engine: "/nonexistent/engine"} },
			"--engine", []string{"not found", "no such file or directory"}, 5 * time.Second},
		{"missing program on PATH", func(t *testing.T) Config { return Config{NBoard: "no-such-engine-on-path --x"} },
			"--nboard", []string{"not found"}, 5 * time.Second},
		{"not executable", func(t *testing.T) Config {
			return Config{Engine: script(t, "exit 0", 0o644)}
		}, "--engine", []string{"not executable", "permission denied"}, 5 * time.Second},
		{"exits 139 at once", func(t *testing.T) Config {
			return Config{Engine: script(t, "echo 'Segmentation fault (core dumped)' >&2\nexit 139", 0o755)}
		}, "--engine", []string{"exited with exit status 139", "its last stderr: Segmentation fault (core dumped)"}, 5 * time.Second},
		{"never answers", func(t *testing.T) Config {
			return Config{Engine: script(t, "while read l; do :; done", 0o755), ProbeTimeout: 400 * time.Millisecond}
		}, "--engine", []string{"no answer in 400ms to the std start position"}, 5 * time.Second},
		{"answers an illegal move", func(t *testing.T) Config {
			return Config{Engine: script(t, `while read l; do echo '{"move": 0}'; done`, 0o755)}
		}, "--engine", []string{"an illegal answer in the std start position", "a1"}, 5 * time.Second},
		{"NBoard engine that never answers", func(t *testing.T) Config {
			return Config{NBoard: script(t, "while read l; do :; done", 0o755), ProbeTimeout: 400 * time.Millisecond}
		}, "--nboard", []string{"no answer in 400ms"}, 5 * time.Second},
		{"Egaroucid that crashes", func(t *testing.T) Config {
			return Config{Egaroucid: egaroucidtest.Install(t, "crash"), Threads: 1, HashMB: 1}
		}, "--egaroucid", []string{"exited with exit status"}, 10 * time.Second},
		{"Egaroucid that answers an illegal move", func(t *testing.T) Config {
			return Config{Egaroucid: egaroucidtest.Install(t, "illegal"), Threads: 1, HashMB: 1}
		}, "--egaroucid", []string{"illegal answer"}, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log enginetest.Log
			cfg := tt.cfg(t)
			cfg.Logger = log.Logger()
			start := time.Now()
			err := cfg.Probe(context.Background())
			require.Error(t, err)
			assert.Less(t, time.Since(start), tt.maxTime)
			var pe *ProbeError
			require.ErrorAs(t, err, &pe, err.Error())
			assert.Equal(t, tt.flag, pe.Flag)
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, tt.flag+" "+cfg.program(mustKind(t, cfg))+": "), msg)
			t.Log(msg)
			assert.NotContains(t, msg, "\n", "one line")
			for _, w := range tt.want {
				assert.Contains(t, msg, w)
			}
		})
	}
}

func mustKind(t *testing.T, c Config) Kind {
	k, err := c.Kind()
	require.NoError(t, err)
	return k
}

func TestProbePassesAGoodEngine(t *testing.T) {
	enginetest.NoLeak(t)
	t.Run("JSON line, every mode, spec requests", func(t *testing.T) {
		var log enginetest.Log
		cfg := Config{Engine: enginetest.FakeCommand(t, probeEngineArg), Logger: log.Logger()}
		require.NoError(t, cfg.Probe(context.Background()), log.String())
		for _, m := range othello.AllModes() {
			assert.Contains(t, log.String(), "probe "+m.String(), "the %s start position was asked", m)
		}
	})
	t.Run("Egaroucid still loading", func(t *testing.T) {
		var log enginetest.Log
		cfg := Config{Egaroucid: egaroucidtest.Install(t, "startup 1500"), Threads: 1, HashMB: 1, Logger: log.Logger()}
		require.NoError(t, cfg.Probe(context.Background()), log.String())
	})
	t.Run("no external engine", func(t *testing.T) {
		require.NoError(t, Config{}.Probe(context.Background()))
	})
}

func TestProbeIsCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	cfg := Config{Engine: script(t, "while read l; do :; done", 0o755)}
	start := time.Now()
	err := cfg.Probe(ctx)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Contains(t, err.Error(), "probe cancelled")
}
