// Command flipbot-arena is a local FlipSight-compatible server: bot clients
// connect to it as to othelloclub.com, built-in bots play on it, a web page
// shows the live boards, and two engines can play a tournament through it.
//
//	flipbot-arena serve --listen ADDR --bot NAME:TOKEN[:MODES] … --builtin NAME[:LEVEL[:MODES]] … [--clock-ms MS] [--auto-match] [--challenge FROM:TO[:MODE]] [--human NAME[:MODE[:xot]]] [--tls]
//	flipbot-arena match --a CMD --b CMD --mode MODE --pairs N [--clock-ms MS] [--concurrency K] [-json]
//	flipbot-arena demo [--flipbot PATH] [--mode MODE] [--clock-ms MS]
//	flipbot-arena version
//
// See arena/README.md.
//
// Files: main.go (the dispatch), serve.go, match.go (tournaments, their
// records), demo.go.
//
// It is thin: it may import arena, config, flipsight, engines,
// engines/jsonline (the tournament's external engines), engines/othello
// and bot/record (the tournament's game records); it plays no bot of its
// own, so it never imports bot.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"flipbot.dev/flipbot/internal/version"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

const usage = `usage:
  flipbot-arena serve --listen ADDR --bot NAME:TOKEN[:MODES] ... --builtin NAME[:LEVEL[:MODES]] ... [--clock-ms MS] [--auto-match] [--tls]
  flipbot-arena match --a CMD --b CMD --mode MODE --pairs N [--clock-ms MS] [--concurrency K] [-json]
  flipbot-arena demo [--flipbot PATH] [--mode MODE] [--clock-ms MS]
  flipbot-arena version
Run a subcommand with -h for its flags.
`

// run dispatches to a subcommand and returns the exit code.
func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return runServe(args[1:], os.Stdout, os.Stderr)
	case "match":
		return runMatch(args[1:], os.Stdout, os.Stderr)
	case "demo":
		return runDemo(args[1:], os.Stdout, os.Stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(os.Stdout, version.Line("flipbot-arena"))
		return 0
	case "-h", "-help", "--help", "help":
		fmt.Fprint(os.Stdout, usage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "flipbot-arena: unknown subcommand %q\n%s", args[0], usage)
	return 2
}

// setUsage makes fs's -h print the subcommand's usage line, then its
// flags, to w.
func setUsage(fs *flag.FlagSet, w io.Writer, line string) {
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "usage: %s\n\nFlags of flipbot-arena %s:\n", line, fs.Name())
		fs.PrintDefaults()
	}
}
