// Command flipengine runs flipbot's rules and built-in engine on their own:
// perft and legal moves, the engine behind the connector's --engine and
// NBoard protocols, exact solves, benchmarks, the Multi-ProbCut fit, the
// evaluation's training pipeline and its move-loss test.
//
// Usage:
//
//	flipengine COMMAND [flags] [arguments]
//
// Run without arguments it prints the list of commands, which is generated
// from the command table in this file (the same table dispatches them);
// 'flipengine COMMAND -h' lists a command's flags. Every command is
// described in engines/README.md, section "The flipengine command".
//
// Exit codes: 0 done, 1 failed (a wrong solve, an unreadable file, an
// engine that does not load), 2 bad usage (no or an unknown command, bad
// flags).
//
// Files: main.go (the command table and dispatch), one file per command
// or group: perft.go, legal.go, engine.go (the JSON-line engine, lines.go
// its reader), nboard.go, solve.go, bench.go, probcut.go, train.go,
// moveloss.go, suite.go; version (internal/version) is in the table here.
//
// It may import engines/othello, engines, engines/search, engines/eval and
// engines/eval/train (the built-in engine and its evaluation),
// engines/search/calib (probcut's fits and tables), engines/ggf
// (NBoard's games), engines/timeplan and bot (the one clock plan and the
// bot's overhead meter, that its engine command shares with the
// connector).
package main

import (
	"fmt"
	"io"
	"os"

	"flipbot.dev/flipbot/internal/version"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// runFunc runs one subcommand: it gets its arguments and the standard
// streams and returns the exit code.
type runFunc func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// command is one row of a command table: the usage text and the dispatcher
// are both made from it.
type command struct {
	name    string
	args    string // what follows the name in the usage line
	summary string // one line
	run     runFunc
}

// commands is flipengine's command table, in the order of the usage text.
func commands() []command {
	return []command{
		{"perft", "-mode MODE -depth N", "count the game tree from the mode's start, one line per depth", runPerft},
		{"legal", "< requests.jsonl", "the rules' legal moves for each engine request on stdin", runLegal},
		{"engine", "[-threads T] [-hash MB]", "the connector's --engine JSON-line protocol on stdin/stdout", runEngine},
		{"nboard", "[-threads T] [-hash MB]", "an NBoard-protocol engine on stdin/stdout (std only)", runNBoard},
		{"solve", "FILE.obf [-threads T] [-json]", "exact endgame solves of an OBF file, checked against its scores", runSolve},
		{"bench", "[-threads T] [-time D] [-mid=false] [-end=false] [-modes M,…]", "fixed midgame and endgame positions per mode: depth, time, nodes/s", runBench},
		{"probcut", "[-eval pattern|baseline] [-out FILE]", "fit the Multi-ProbCut table of one evaluation and write it as Go", runProbCut},
		{"train", "wthor|selfplay|fit|validate [flags]", "the pattern evaluation's training pipeline", runTrain},
		{"moveloss", "FILE.obf… [-remaining D] [-budget D]", "one move per OBF position under a clock: mean loss in discs, best moves", runMoveLoss},
		{"suite", "WTH_YYYY.wtb… [-min E] [-max E] [-n N] [-skip K] [-seed S]", "an OBF suite of WTHOR positions with every move's exact score", runSuite},
		{"version", "", "the build's version", runVersion},
	}
}

// usage writes the command list made from table, each command's name and
// arguments on one line and its summary indented on the next, under the
// line "usage: PREFIX COMMAND [flags]".
func usage(w io.Writer, prefix string, table []command) {
	fmt.Fprintf(w, "usage: %s COMMAND [flags]\n\ncommands:\n", prefix)
	for _, c := range table {
		fmt.Fprintf(w, "  %s %s\n        %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintf(w, "\n'%s COMMAND -h' lists a command's flags; engines/README.md describes each command.\n", prefix)
}

// dispatch runs the command of table that args[0] names. No command, or an
// unknown one, prints the usage on stderr and returns 2; so do -h, -help,
// --help and help, without the error line.
func dispatch(prefix string, table []command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr, prefix, table)
		return 2
	}
	for _, c := range table {
		if c.name == args[0] {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
	default:
		fmt.Fprintf(stderr, "%s: unknown command %q\n", prefix, args[0])
	}
	usage(stderr, prefix, table)
	return 2
}

// runVersion prints the build's version.
func runVersion(_ []string, _ io.Reader, stdout, _ io.Writer) int {
	fmt.Fprintln(stdout, version.Line("flipengine"))
	return 0
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return dispatch("flipengine", commands(), args, stdin, stdout, stderr)
}
