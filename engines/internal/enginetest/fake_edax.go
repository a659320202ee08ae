package enginetest

import (
	"fmt"
	"os"
	"slices"
	"time"
)

// fakeEdax behaves like Edax 4.6 in NBoard mode: it needs -nboard, an
// existing -eval-file, data/ in its working directory and `nboard 1`; it
// searches until a ping stops it (or 10 s), then answers in lower case
// like "=== f5 0.00 0.0", then "pong N"; `hint 1` searches the same way
// and answers "search f5d6 -2 0 13". With "-fake quick" it answers at
// once; with "-fake crash" it exits on go; "-fake slowstart" sleeps 0.6 s
// before reading.
func fakeEdax(args []string) int {
	behaviour := ""
	if i := slices.Index(args, "-fake"); i >= 0 && i+1 < len(args) {
		behaviour = args[i+1]
	}
	if behaviour == "slowstart" {
		time.Sleep(600 * time.Millisecond)
	}
	if behaviour == "args" { // "-fake args": fail unless -n 3 -h 17
		if i := slices.Index(args, "-n"); i < 0 || i+1 >= len(args) || args[i+1] != "3" {
			return 7
		}
		if i := slices.Index(args, "-h"); i < 0 || i+1 >= len(args) || args[i+1] != "17" {
			return 7
		}
	}
	if !slices.Contains(args, "-nboard") {
		fmt.Fprintln(os.Stderr, "not in nboard mode")
		return 6
	}
	i := slices.Index(args, "-eval-file")
	if i < 0 || i+1 >= len(args) {
		return 6
	}
	if _, err := os.Stat(args[i+1]); err != nil {
		fmt.Fprintln(os.Stderr, "no eval:", err)
		return 6
	}
	if _, err := os.Stat("data"); err != nil {
		fmt.Fprintln(os.Stderr, "working directory has no data/")
		return 6
	}
	return runNBoard(edaxReplies{behaviour: behaviour})
}

// edaxReplies is fakeEdax's replies.
type edaxReplies struct{ behaviour string }

func (edaxReplies) name() string { return "Edax" }

func (edaxReplies) hello(version string) int {
	if version != "1" {
		fmt.Fprintln(os.Stderr, `Error: Edax expected "nboard 1" protocol`)
	}
	return 0
}

func (e edaxReplies) search(s *nboardSession) int {
	switch e.behaviour {
	case "quick":
		s.answer()
	case "crash":
		return 3
	default:
		say("status Edax is thinking")
		s.searchFor(10 * time.Second)
	}
	return 0
}

func (edaxReplies) ping(s *nboardSession, n string) { s.pong(n) }

func (edaxReplies) answer(s *nboardSession) {
	name := s.bestMove(true)
	say("nodestats 4242 0.00")
	if s.hint {
		say("search %sD6c3 -2 0 13", name)
	} else {
		say("=== %s -2.00 0.1", name)
	}
	say("status Edax is waiting")
}
