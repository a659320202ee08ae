package main

import (
	"fmt"
	"io"
)

// The engine subcommands arrive with the built-in engine (issue 3). Until
// then each says so and fails.

func runEngine(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return notYet("engine", stderr)
}

func runNBoard(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return notYet("nboard", stderr)
}

func runSolve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return notYet("solve", stderr)
}

func runBench(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return notYet("bench", stderr)
}

func notYet(name string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "flipengine %s: not implemented yet\n", name)
	return 1
}
