// Command soak plays a Bot against the arena for a long time with faults
// injected, and prints what went wrong and how the process's resources
// evolved. It is a benchmark command, not a test (an hour by default):
//
//	nice -n 19 go run ./bot/internal/soak -duration 1h -out /tmp/soak
//
// The arena runs in this process behind a fault-injecting front
// (arena/arenatest's Front, served by its Endpoint on loopback); the bot
// plays with an external JSON-line engine (flipengine engine, built into
// -out unless -engine-bin is given), its fallbacks made by the built-in
// engine's quick search as flipbot makes them, two matches at a time, the
// modes in turn, against a built-in house bot that keeps challenging it
// (level 4 by default, so that most games go to the board's end). The bot plans its
// clock as flipbot does (its default 10-s cap, -max-think), so legs end
// with a few seconds left, where a fault costs most. On a
// schedule one fault fires: the stream is cut, the next API answers are
// 503, a move's answer is lost after the server applied it, an engine
// process is killed (crash) or stopped (hang), or the HTTP server goes away
// for a few seconds and comes back (restart; the arena's state survives,
// as a real server's database does). An interrupt ends the play early; the
// report follows.
//
// It reports: illegal moves (illegal_move answers to the bot, as the front
// saw them), legs the bot lost on time and matches that ended other than by
// discs (from the arena's results), matches lost on discs, the bot's moves
// by their source (counted from the structured "source" attribute of the
// bot's record of each move sent, never from a message's text), the engine
// moves that ended without an answer at their deadline (counted by a
// wrapper around the engine), RSS and heap samples (first and last quarter
// of the run), and the goroutines, file descriptors and engine processes
// after the bot stopped against their values before it started. The exit
// status is 1 when any of the zero-figures is not zero, a resource did not
// come back, or the moves carried no source; 2 on a bad command line.
//
// The files: config.go (flags), run.go (the run's set-up, play and
// shut-down), matches.go (the challenger and the results), faults.go (the
// fault schedule), metrics.go (counters, histogram, the log and engine
// counters), proc.go (/proc sampling), profile.go and report.go.
//
// A command beside the bot, not a shipped one: it may import bot, arena
// and arena/arenatest (the server and its fault front, in process),
// engines, engines/jsonline (the bot's engine), engines/othello,
// engines/eval and engines/search (the quick search of its fallbacks),
// and flipsight.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
)

func main() {
	os.Exit(soak(os.Args[1:], os.Stdout, os.Stderr))
}

// soak runs the command with args and returns its exit status.
func soak(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "soak:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopProfile := func() {}
	if cfg.CPUProfile {
		if stopProfile, err = startProfile(filepath.Join(cfg.Out, "cpu.pprof")); err != nil {
			fmt.Fprintln(stderr, "soak:", err)
			return 1
		}
	}
	if cfg.HeapEvery > 0 {
		// Sample every 4 KiB allocated on average instead of every 512 KiB, so
		// that a growth of a few hundred KiB shows in the profiles.
		runtime.MemProfileRate = 4096
	}
	err = run(ctx, cfg, stdout)
	stopProfile()
	switch {
	case errors.Is(err, errFigures):
		return 1 // the report says which
	case err != nil:
		fmt.Fprintln(stderr, "soak:", err)
		return 1
	}
	return 0
}
