package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// runNBoard is an NBoard-protocol engine on stdin/stdout (std only).
// Commands: nboard N, set depth N, set game GGF, set contempt N, move
// F5[/eval/time], go (answered "=== F5/eval/time" then "nodestats N S"),
// hint N ("search PV eval 0 depth"), ping N (stops a search, then "pong N"),
// learn, quit. The engine never plays its own go move: the controller sends
// every move with "move". Malformed lines are reported on stderr and skipped.
func runNBoard(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("nboard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef engineFlags
	ef.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	eng, err := ef.engine(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine nboard: %v\n", err)
		return 1
	}
	s := &nboardServer{eng: eng, out: stdout, errOut: stderr, depth: 12, pos: othello.New(othello.Std)}
	defer s.eng.Close()
	defer s.stopSearch()
	lr := newLineReader(stdin)
	for {
		line, err := lr.next()
		if errors.Is(err, errLineTooLong) {
			s.errorf("line over %d bytes skipped", maxLine)
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			s.errorf("read stdin: %v", err)
			return 1
		}
		if quit := s.handle(strings.TrimSpace(string(line))); quit {
			return 0
		}
	}
}

// nboardServer is the state of an NBoard session. The command loop owns pos
// and depth; a search runs in its own goroutine on a copy, and output lines
// are written under mu.
type nboardServer struct {
	eng    *search.Engine
	out    io.Writer
	errOut io.Writer
	mu     sync.Mutex

	pos   othello.Position
	depth int

	cancel context.CancelFunc
	done   chan struct{}
}

func (s *nboardServer) println(format string, a ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.out, format+"\n", a...)
}

func (s *nboardServer) errorf(format string, a ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.errOut, "flipengine nboard: "+format+"\n", a...)
}

// stopSearch stops a running search and waits for it to end.
func (s *nboardServer) stopSearch() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	<-s.done
	s.cancel, s.done = nil, nil
}

// handle runs one command line and reports whether to quit.
func (s *nboardServer) handle(line string) bool {
	if line == "" {
		return false
	}
	cmd, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch cmd {
	case "nboard":
		s.println("set myname flipbot")
	case "set":
		s.handleSet(rest)
	case "move":
		s.stopSearch()
		if err := s.applyMove(rest); err != nil {
			s.errorf("%v", err)
		}
	case "go":
		s.startSearch(false)
	case "hint":
		s.startSearch(true)
	case "ping":
		s.stopSearch()
		s.println("pong %s", rest)
	case "learn", "analyze":
	case "quit":
		return true
	default:
		s.errorf("unknown command %q", cmd)
	}
	return false
}

func (s *nboardServer) handleSet(rest string) {
	what, value, _ := strings.Cut(rest, " ")
	value = strings.TrimSpace(value)
	switch what {
	case "depth":
		d, err := strconv.Atoi(value)
		if err != nil || d < 1 || d > 60 {
			s.errorf("set depth %q: want 1–60", value)
			return
		}
		s.depth = d
	case "game":
		s.stopSearch()
		g, err := ggf.Parse(value)
		if err != nil {
			s.errorf("set game: %v", err)
			return
		}
		pos, err := g.Position()
		if err != nil {
			s.errorf("set game: %v", err)
			return
		}
		s.pos = pos
	case "contempt":
	default:
		s.errorf("unknown setting %q", what)
	}
}

// applyMove plays "F5[/eval[/time]]" on the game, with an implicit pass when
// the side to move has none.
func (s *nboardServer) applyMove(arg string) error {
	text, _, _ := strings.Cut(arg, "/")
	mv, err := othello.ParseMove(text, 8)
	if err != nil {
		return fmt.Errorf("move %q: %w", arg, err)
	}
	pos := s.pos
	if mv != othello.Pass && pos.MustPass() {
		pos.Turn = pos.Turn.Opponent()
	}
	next, err := pos.Play(mv)
	if err != nil {
		return fmt.Errorf("move %q: %w", arg, err)
	}
	s.pos = next
	return nil
}

// startSearch searches the current position in the background and answers
// "=== move/eval/time" (go) or a "search" line (hint).
func (s *nboardServer) startSearch(hint bool) {
	s.stopSearch()
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	pos, depth, done := s.pos, s.depth, s.done
	go func() {
		defer close(done)
		if hint {
			s.println("status thinking")
		}
		n := pos.Empties().Count()
		res, err := s.eng.Search(ctx, pos, search.Limits{Depth: depth, Exact: depth >= n})
		if err != nil {
			s.errorf("search: %v", err)
			return
		}
		if hint {
			s.println("search %s %.2f 0 %s", pvText(pos, res), res.Score, depthText(res))
			s.println("status")
			return
		}
		s.println("=== %s/%.2f/%.3f", moveText(res.Move), res.Score, res.Elapsed.Seconds())
		s.println("nodestats %d %.3f", res.Nodes, res.Elapsed.Seconds())
	}()
}

func moveText(mv int) string {
	if mv == othello.Pass {
		return "PA"
	}
	return strings.ToUpper(othello.SquareName(mv, 8))
}

func pvText(pos othello.Position, res engines.Result) string {
	pv := res.PV
	if len(pv) == 0 {
		pv = []int{res.Move}
	}
	var b strings.Builder
	for _, mv := range pv {
		b.WriteString(moveText(mv))
	}
	return b.String()
}

func depthText(res engines.Result) string {
	if res.Exact {
		return "100%"
	}
	return strconv.Itoa(res.Depth)
}
