// Command flipengine runs flipbot's engine and rules on their own:
//
//	flipengine perft -mode MODE -depth N   count the game tree, one line per depth
//	flipengine legal                       legal moves for engine requests read from stdin
//	flipengine engine                      the --engine JSON-line protocol on stdin/stdout
//	flipengine nboard                      an NBoard-protocol engine (std)
//	flipengine solve FILE.obf              exact endgame solves
//	flipengine bench                       a fixed benchmark of search speed
//	flipengine probcut -eval E -out FILE   fit the Multi-ProbCut parameters
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is one subcommand: it gets its arguments and the standard streams
// and returns the exit code.
type command func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

func commands() map[string]command {
	return map[string]command{
		"perft":    runPerft,
		"legal":    runLegal,
		"engine":   runEngine,
		"nboard":   runNBoard,
		"solve":    runSolve,
		"bench":    runBench,
		"probcut":  runProbCut,
		"train":    runTrain,
		"moveloss": runMoveLoss,
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: flipengine perft|legal|engine|nboard|solve|bench|probcut [flags]")
		return 2
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "flipengine: unknown command %q\n", args[0])
		return 2
	}
	return cmd(args[1:], stdin, stdout, stderr)
}
