package enginetest

import (
	"fmt"
	"os"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/engines/othello"
)

// nboardReplies is what a fake speaking NBoard's protocol states: its
// replies. The one loop of those fakes, runNBoard, does the rest.
type nboardReplies interface {
	// name is the engine's name as "set depth D" makes it say
	// "set myname <name>D".
	name() string
	// hello takes "nboard V": a status other than 0 ends the fake with
	// it.
	hello(version string) int
	// search begins the search of `go` or `hint` (s.hint says which):
	// answering at once (s.answer), later (s.searchFor), or never; a
	// status other than 0 ends the fake with it (a crash).
	search(s *nboardSession) int
	// ping answers "ping N", stopping a search in progress (s.searching)
	// with its answer first; s.pong is the plain way.
	ping(s *nboardSession, n string)
	// answer says the result of the search of s.pos: the "===" line, or
	// for a hint the "search" lines, and what the engine says around it.
	answer(s *nboardSession)
}

// nboardSession is a fake NBoard engine's state between two lines: the
// position of the last `set game` and the search in progress. Only
// runNBoard's goroutine uses it.
type nboardSession struct {
	// pos is the position of the last `set game` (the start before one).
	pos othello.Position
	// hint tells a search for `hint` from one for `go`.
	hint bool
	// timer fires when the search in progress ends; nil when none is.
	timer   <-chan time.Time
	replies nboardReplies
}

// runNBoard is the one line loop of the fakes that speak NBoard's
// protocol (fake_nboard.go, fake_edax.go): it reads standard input line
// by line, keeps the position that `set game` sends (a game it cannot
// read is told on standard error and changes nothing), ends a search when
// its time is up, and returns 0 on `quit` or at the end of the input.
// Everything else an engine says is r's.
func runNBoard(r nboardReplies) int {
	in := stdinLines()
	s := &nboardSession{pos: othello.New(othello.Std), replies: r}
	for {
		select {
		case <-s.timer:
			s.answer()
		case l, ok := <-in:
			if !ok {
				return 0
			}
			if code, quit := s.line(l); quit {
				return code
			}
		}
	}
}

// line takes one line of input; quit ends the fake with code.
func (s *nboardSession) line(l string) (code int, quit bool) {
	cmd, rest, _ := strings.Cut(l, " ")
	switch cmd {
	case "nboard":
		if code := s.replies.hello(rest); code != 0 {
			return code, true
		}
	case "set":
		what, val, _ := strings.Cut(rest, " ")
		switch what {
		case "depth":
			say("set myname %s%s", s.replies.name(), val)
		case "game":
			g, err := ggf.Parse(val)
			if err == nil {
				s.pos, err = g.Position()
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "Error:", err)
			}
		}
	case "ping":
		s.replies.ping(s, rest)
	case "go", "hint":
		s.hint = cmd == "hint"
		if code := s.replies.search(s); code != 0 {
			return code, true
		}
	case "quit":
		return 0, true
	}
	return 0, false
}

// searching reports a search in progress (one that s.searchFor began).
func (s *nboardSession) searching() bool { return s.timer != nil }

// searchFor begins a search that answers after d, unless a ping stops it
// first.
func (s *nboardSession) searchFor(d time.Duration) { s.timer = time.After(d) }

// answer ends the search, if one is in progress, and says its result.
func (s *nboardSession) answer() {
	s.timer = nil
	s.replies.answer(s)
}

// pong is the plain answer to "ping n": the search in progress answers
// first, then "pong n".
func (s *nboardSession) pong(n string) {
	if s.searching() {
		s.answer()
	}
	say("pong %s", n)
}

// bestMove is the square name of the first legal move of s.pos (the last
// when last), in lower case, or "pa" for a pass.
func (s *nboardSession) bestMove(last bool) string {
	legal := s.pos.LegalMoves()
	if len(legal) == 0 {
		return "pa"
	}
	if last {
		return othello.SquareName(legal[len(legal)-1], 8)
	}
	return othello.SquareName(legal[0], 8)
}
