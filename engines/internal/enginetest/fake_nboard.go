package enginetest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines/ggf"
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
	behaviour := args[0]
	if behaviour == "slowstart" {
		ms, _ := strconv.Atoi(args[1])
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	in := stdinLines()
	pos := othello.New(othello.Std)
	var (
		searching bool
		timer     <-chan time.Time
		deferred  []string
		gos       int
		hint      bool
	)
	answer := func() {
		searching, timer = false, nil
		legal := pos.LegalMoves()
		move := othello.Pass
		if len(legal) > 0 {
			move = legal[0]
			if behaviour == "last" {
				move = legal[len(legal)-1]
			}
		}
		name := strings.ToUpper(othello.SquareName(move, 8))
		if move == othello.Pass {
			name = "PA"
		}
		if hint {
			if behaviour == "edax" {
				say("nodestats 12345 0.00")
				say("search %s 1 0 13", strings.ToLower(name))
			} else {
				say("search %sd6 1.5 0 9", name)
			}
			say("status waiting")
			return
		}
		switch behaviour {
		case "edax":
			say("nodestats 12345 0.25")
			say("=== %s 1.00 0.3", strings.ToLower(name))
			say("status Edax is waiting")
		case "garbage":
			say("status thinking")
			say("what")
			say("=== %s/2.5/0.1", name)
		case "illegal":
			say("=== %s", strings.ToUpper(othello.SquareName(pos.Black.First(), 8)))
		case "pass":
			say("=== pa")
		case "badmove":
			say("=== z9/1/1")
		default:
			say("=== %s/1.50/0.10", name)
		}
	}
	for {
		select {
		case <-timer:
			answer()
		case l, ok := <-in:
			if !ok {
				return 0
			}
			cmd, rest, _ := strings.Cut(l, " ")
			switch cmd {
			case "nboard":
				if behaviour == "edax" && rest != "1" {
					fmt.Fprintln(os.Stderr, "Error: Edax expected \"nboard 1\" protocol")
					return 5
				}
			case "set":
				what, val, _ := strings.Cut(rest, " ")
				switch what {
				case "depth":
					say("set myname Fake%s", val)
				case "game":
					g, err := ggf.Parse(val)
					if err != nil {
						fmt.Fprintln(os.Stderr, "Error:", err)
						continue
					}
					if pos, err = g.Position(); err != nil {
						fmt.Fprintln(os.Stderr, "Error:", err)
					}
				}
			case "ping":
				if behaviour == "lateping" && searching && len(deferred) == 0 {
					// Like a ping read before the search started: it
					// stops nothing, and its pong waits for the answer.
					deferred = append(deferred, rest)
					continue
				}
				if behaviour == "garbage" {
					say("pong x")
					say("pong 999999")
				}
				if searching {
					if behaviour == "slowstop" {
						time.Sleep(500 * time.Millisecond)
					}
					answer()
				}
				for _, n := range deferred {
					say("pong %s", n)
				}
				deferred = nil
				say("pong %s", rest)
			case "go", "hint":
				hint = cmd == "hint"
				switch behaviour {
				case "stubborn":
					time.Sleep(10 * time.Second)
					answer()
				case "slowgo", "lateping", "slowstop":
					searching, timer = true, time.After(10*time.Second)
				case "deafsecond":
					if gos++; gos == 2 {
						time.Sleep(time.Minute)
					}
					answer()
				case "crash":
					return 3
				case "crashonce":
					if _, err := os.Stat(args[1]); err != nil {
						_ = os.WriteFile(args[1], nil, 0o600)
						return 3
					}
					answer()
				default:
					answer()
				}
			case "quit":
				return 0
			}
		}
	}
}
