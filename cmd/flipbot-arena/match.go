package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/jsonline"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

func runMatch(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("match", flag.ContinueOnError)
	setUsage(fs, stderr, "flipbot-arena match --a CMD --b CMD [--mode MODE] [--pairs N] [flags]")
	a := fs.String("a", "", "engine A: a command speaking the --engine JSON protocol, or builtin[:LEVEL] (0 random, 1 greedy, 2-59 search depth, 60 full strength = default)")
	b := fs.String("b", "", "engine B, like --a")
	modeName := fs.String("mode", "std", "game: std, anti, grand, octagon or reversi")
	pairs := fs.Int("pairs", 10, "paired matches to play (two legs each)")
	clockMS := fs.Int("clock-ms", 60000, "each colour's time per leg, in ms")
	conc := fs.Int("concurrency", 1, "matches at once")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	seed := fs.Uint64("seed", 0, "seed of the random starts (0: from the clock)")
	verbose := fs.Bool("v", false, "log the server's lines (and every move)")
	gamesFile := fs.String("games", "", "append every leg's record to `FILE` as JSON lines (bot/record's schema); every game but reversi also as GGF to FILE with the extension .ggf")
	viaAPI := fs.Bool("via-api", false, "play both engines as bots through the HTTP API on loopback (polling every 20 ms) instead of as server-side players")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	mode, err := othello.ParseMode(*modeName)
	if err != nil || *a == "" || *b == "" || *pairs <= 0 || *clockMS <= 0 || *conc <= 0 {
		fmt.Fprintln(stderr, "flipbot-arena match: need --a, --b, a valid --mode, --pairs ≥ 1, --clock-ms > 0, --concurrency ≥ 1")
		return 2
	}
	log := slog.New(slog.DiscardHandler)
	if *verbose {
		log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	fa, na, err := engineFactory(*a, mode, log)
	if err != nil {
		fmt.Fprintf(stderr, "flipbot-arena match: --a: %v\n", err)
		return 2
	}
	fb, nb, err := engineFactory(*b, mode, log)
	if err != nil {
		fmt.Fprintf(stderr, "flipbot-arena match: --b: %v\n", err)
		return 2
	}
	if na == nb {
		na, nb = na+"-A", nb+"-B"
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	var onMatch func(flipsight.Match)
	var gamesErr error
	if *gamesFile != "" {
		var mu sync.Mutex
		onMatch = func(m flipsight.Match) {
			mu.Lock()
			defer mu.Unlock()
			if err := writeGames(*gamesFile, m, [2]string{na, nb}); err != nil && gamesErr == nil {
				gamesErr = err
				fmt.Fprintf(stderr, "\nflipbot-arena match: --games: %v\n", err)
			}
		}
	}
	stats, err := arena.RunTournament(ctx, arena.TournamentConfig{
		A: fa, B: fb, NameA: na, NameB: nb, Mode: mode, Pairs: *pairs,
		// Command engines fail as with the official connector: no answer
		// within budget_ms loses the leg on time.
		StrictA: !isBuiltin(*a), StrictB: !isBuiltin(*b), ViaAPI: *viaAPI,
		Clock: time.Duration(*clockMS) * time.Millisecond, Concurrency: *conc, Logger: log, Seed: *seed,
		OnMatch: onMatch,
		Progress: func(s arena.TournamentStats) {
			fmt.Fprintf(stderr, "\r%d/%d  +%d =%d -%d  score %.1f%%  discs %d-%d   ", s.Played, s.Pairs, s.Wins, s.Draws, s.Losses, s.Score, s.DiscsA, s.DiscsB)
		},
	})
	fmt.Fprintln(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "flipbot-arena match: %v\n", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(statsJSON(na, nb, stats, time.Since(start)))
	} else {
		printStats(stdout, na, nb, stats, time.Since(start))
	}
	if err != nil || gamesErr != nil {
		return 1
	}
	return 0
}

// writeGames appends the records of a match's legs to path (JSON lines)
// and, for the modes GGF has (all but reversi), their GGF to path with
// the extension .ggf.
func writeGames(path string, m flipsight.Match, names [2]string) error {
	var games []record.Game
	if m.State == nil {
		return nil
	}
	for i, l := range m.State.Legs {
		if l.Status == flipsight.LegActive {
			continue
		}
		g, err := record.FromLeg(record.LegInput{Source: record.SourceArena, Match: m, Leg: i, View: l,
			Names: names, IDs: [2]int64{m.BotA, m.BotB}, Me: -1, MatchResult: matchResult(m)})
		if err != nil {
			return err
		}
		games = append(games, g)
	}
	if err := record.AppendFile(path, games...); err != nil {
		return err
	}
	var ggfs []string
	for _, g := range games {
		if record.FormatGGF.Expresses(g.Mode) {
			s, err := g.GGF()
			if err != nil {
				return err
			}
			ggfs = append(ggfs, s+"\n")
		}
	}
	if len(ggfs) == 0 {
		return nil
	}
	gp := strings.TrimSuffix(path, filepath.Ext(path)) + ".ggf"
	f, err := os.OpenFile(gp, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("games file: %w", err)
	}
	_, err = f.WriteString(strings.Join(ggfs, ""))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("games file %s: %w", gp, err)
	}
	return nil
}

// matchResult is the match from A's side (bot_a).
func matchResult(m flipsight.Match) string {
	switch {
	case m.Status == flipsight.MatchAborted:
		return record.Aborted
	case m.Status != flipsight.MatchFinished || m.State == nil:
		return record.Unknown
	case m.State.Winner == nil:
		return record.Draw
	case *m.State.Winner == 0:
		return record.Win
	}
	return record.Loss
}

// statsJSON is the -json output; infinite Elo bounds (0 % or 100 %) are
// the strings "+inf"/"-inf", which JSON numbers cannot hold.
func statsJSON(na, nb string, s arena.TournamentStats, took time.Duration) map[string]any {
	return map[string]any{
		"a": na, "b": nb, "mode": s.Mode, "pairs": s.Pairs, "played": s.Played,
		"wins": s.Wins, "draws": s.Draws, "losses": s.Losses, "aborted": s.Aborted, "timeouts": s.Timeouts,
		"discs_a": s.DiscsA, "discs_b": s.DiscsB, "score_pct": math.Round(s.Score*10) / 10,
		"elo": fmtElo(s.Elo), "elo_low": fmtElo(s.EloLow), "elo_high": fmtElo(s.EloHigh),
		"seconds": math.Round(took.Seconds()*10) / 10,
	}
}

func fmtElo(e float64) any {
	if math.IsInf(e, 0) || math.IsNaN(e) {
		return eloStr(e)
	}
	return math.Round(e*10) / 10
}

func printStats(w io.Writer, na, nb string, s arena.TournamentStats, took time.Duration) {
	fmt.Fprintf(w, "%s vs %s, %s, %d pairs (%d legs) in %s\n", na, nb, s.Mode, s.Played, 2*s.Played, took.Round(10*time.Millisecond))
	fmt.Fprintf(w, "  %s: %d wins, %d draws, %d losses", na, s.Wins, s.Draws, s.Losses)
	if s.Aborted > 0 {
		fmt.Fprintf(w, ", %d aborted", s.Aborted)
	}
	if s.Timeouts > 0 {
		fmt.Fprintf(w, ", %d with timeouts", s.Timeouts)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  discs: %s %d, %s %d\n", na, s.DiscsA, nb, s.DiscsB)
	fmt.Fprintf(w, "  score: %.1f%%\n", s.Score)
	fmt.Fprintf(w, "  Elo %s − %s: %s (95%% interval %s to %s)\n", na, nb, eloStr(s.Elo), eloStr(s.EloLow), eloStr(s.EloHigh))
}

func eloStr(e float64) string {
	switch {
	case math.IsInf(e, 1):
		return "+inf"
	case math.IsInf(e, -1):
		return "-inf"
	}
	return fmt.Sprintf("%+.0f", e)
}

func isBuiltin(spec string) bool { return spec == "builtin" || strings.HasPrefix(spec, "builtin:") }

// engineFactory reads an engine spec: builtin[:LEVEL] (one search engine
// shared by the side's matches) or a command (one process per match).
func engineFactory(spec string, mode othello.Mode, log *slog.Logger) (engines.Provider, string, error) {
	if isBuiltin(spec) {
		level := arena.LevelMax
		if rest, ok := strings.CutPrefix(spec, "builtin:"); ok {
			n, err := strconv.Atoi(rest)
			if err != nil || n < 0 || n > arena.LevelMax {
				return nil, "", fmt.Errorf("builtin level %q is not 0..%d", rest, arena.LevelMax)
			}
			level = n
		}
		// One search engine per side, shared by that side's matches; each
		// side gets half the cores.
		maker := arena.NewEngines(0, 0)
		return engines.Shared(maker.At(level)), fmt.Sprintf("builtin-%d", level), nil
	}
	probe, err := jsonline.New(jsonline.Options{Command: spec, Modes: []othello.Mode{mode}, Logger: log})
	if err != nil {
		return nil, "", err
	}
	name := probe.Name()
	_ = probe.Close()
	name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	if n := []rune(name); len(n) > 24 {
		name = string(n[:24])
	}
	for len([]rune(name)) < 2 {
		name += "_"
	}
	return engines.PerMatch(func() (engines.Engine, error) {
		return jsonline.New(jsonline.Options{Command: spec, Modes: []othello.Mode{mode}, Logger: log})
	}, log), name, nil
}
