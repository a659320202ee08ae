package enginetest

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Protocol is a protocol that the fake engine speaks: the test binary of
// an adapter package, re-run as an engine, is the one fake engine program
// of the adapters' tests, scripted by its arguments.
type Protocol string

// The fake engine's protocols.
const (
	// FakeJSONLine is the JSON-line protocol of engines/jsonline (the
	// spec's engine request, one answer line): fake_jsonline.go.
	FakeJSONLine Protocol = "jsonline"
	// FakeNBoard is NBoard's protocol, as engines/nboard speaks it:
	// fake_nboard.go.
	FakeNBoard Protocol = "nboard"
	// FakeEdax is Edax 4.6 in NBoard mode, with its command line, eval
	// file and data folder, as engines/edax starts it: fake_edax.go.
	FakeEdax Protocol = "edax"
)

// RunFake is the TestMain of an adapter package whose tests start the fake
// engine speaking p (RunFakeOrTests with Fake).
func RunFake(m *testing.M, p Protocol) {
	RunFakeOrTests(m, "FLIPBOT_FAKE_ENGINE_"+strings.ToUpper(string(p)), func(args []string) int { return Fake(p, args) })
}

// Fake runs the fake engine speaking p, scripted by args (each protocol's
// script documents its own), on the process's standard input and output,
// and returns its exit status.
func Fake(p Protocol, args []string) int {
	switch p {
	case FakeJSONLine:
		return fakeJSONLine(args)
	case FakeNBoard:
		return fakeNBoard(args)
	case FakeEdax:
		return fakeEdax(args)
	}
	fmt.Fprintf(os.Stderr, "fake engine: no protocol %q\n", p)
	return 2
}

// stdinLines returns the lines of standard input (up to 1 MiB each), read
// by a goroutine, closed at the end of the input.
func stdinLines() <-chan string {
	in := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			in <- sc.Text()
		}
		close(in)
	}()
	return in
}

// say writes one line to standard output at once (one write).
func say(format string, a ...any) {
	fmt.Fprintf(os.Stdout, format+"\n", a...)
}
