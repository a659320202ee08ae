package enginetest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines/othello"
)

// fakeNBoard is a scripted NBoard engine: it reads the position from
// `set game` and answers the first legal move. args[0] is the behaviour:
//
//	ok         "=== F5/1.50/0.10", upper case
//	edax       exits 5 unless `nboard 1`; "=== f5 0.00 0.0"; "nodestats"
//	garbage    noise and malformed lines before each answer and pong
//	illegal    answers an occupied square
//	pass       answers "=== pa"
//	badmove    answers "=== z9"
//	slowgo     searches 10 s unless a ping stops it (answer, then pong)
//	lateping   like slowgo, but the first ping of a search stops nothing
//	slowstop   like slowgo, but a ping takes 0.5 s to stop the search
//	deafsecond stops reading on its second go
//	crash      exits 3 on go
//	crashonce  the first run (marker file args[1] absent) exits 3 on go
//	slowstart  sleeps args[1] ms before reading
//	last       answers the last legal move
//	stubborn   searches 10 s and reads no ping until then
//
// `hint 1` is answered like go, with "search F5d6 1.5 0 9" ("search f5 1
// 0 13" for edax) instead of the === line.
func fakeNBoard(args []string) int {
	if len(args) == 0 {
		return 2
	}
	f := &scriptedNBoard{behaviour: args[0], args: args}
	if f.behaviour == "slowstart" {
		ms, _ := strconv.Atoi(args[1])
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	return runNBoard(f)
}

// scriptedNBoard is fakeNBoard's replies (runNBoard's goroutine only).
type scriptedNBoard struct {
	behaviour string
	args      []string
	// deferred are the pongs that wait for the search's answer (lateping).
	deferred []string
	// gos counts the searches begun (deafsecond).
	gos int
}

func (f *scriptedNBoard) name() string { return "Fake" }

func (f *scriptedNBoard) hello(version string) int {
	if f.behaviour == "edax" && version != "1" {
		fmt.Fprintln(os.Stderr, "Error: Edax expected \"nboard 1\" protocol")
		return 5
	}
	return 0
}

func (f *scriptedNBoard) search(s *nboardSession) int {
	switch f.behaviour {
	case "stubborn":
		time.Sleep(10 * time.Second)
		s.answer()
	case "slowgo", "lateping", "slowstop":
		s.searchFor(10 * time.Second)
	case "deafsecond":
		if f.gos++; f.gos == 2 {
			time.Sleep(time.Minute)
		}
		s.answer()
	case "crash":
		return 3
	case "crashonce":
		if _, err := os.Stat(f.args[1]); err != nil {
			_ = os.WriteFile(f.args[1], nil, 0o600)
			return 3
		}
		s.answer()
	default:
		s.answer()
	}
	return 0
}

func (f *scriptedNBoard) ping(s *nboardSession, n string) {
	if f.behaviour == "lateping" && s.searching() && len(f.deferred) == 0 {
		// Like a ping read before the search started: it stops
		// nothing, and its pong waits for the answer.
		f.deferred = append(f.deferred, n)
		return
	}
	if f.behaviour == "garbage" {
		say("pong x")
		say("pong 999999")
	}
	if s.searching() {
		if f.behaviour == "slowstop" {
			time.Sleep(500 * time.Millisecond)
		}
		s.answer()
	}
	for _, d := range f.deferred {
		say("pong %s", d)
	}
	f.deferred = nil
	s.pong(n)
}

func (f *scriptedNBoard) answer(s *nboardSession) {
	name := strings.ToUpper(s.bestMove(f.behaviour == "last"))
	if s.hint {
		if f.behaviour == "edax" {
			say("nodestats 12345 0.00")
			say("search %s 1 0 13", strings.ToLower(name))
		} else {
			say("search %sd6 1.5 0 9", name)
		}
		say("status waiting")
		return
	}
	switch f.behaviour {
	case "edax":
		say("nodestats 12345 0.25")
		say("=== %s 1.00 0.3", strings.ToLower(name))
		say("status Edax is waiting")
	case "garbage":
		say("status thinking")
		say("what")
		say("=== %s/2.5/0.1", name)
	case "illegal":
		say("=== %s", strings.ToUpper(othello.SquareName(s.pos.Black.First(), 8)))
	case "pass":
		say("=== pa")
	case "badmove":
		say("=== z9/1/1")
	default:
		say("=== %s/1.50/0.10", name)
	}
}
