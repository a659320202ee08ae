package enginetest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"flipbot.dev/flipbot/engines/othello"
)

// fakeJSONLine is the scripted JSON-line engine. args[0] is the
// behaviour:
//
//	ok         answer the first legal move by the rules as a number
//	coord      answer the last legal move as an upper-case coordinate
//	wire       answer legal_moves[0] of the request as sent
//	garbage    print non-answers first, then answer like ok
//	illegal    answer an occupied square
//	outside    answer square 64
//	pass       answer -1
//	badmove    answer "zz"
//	hang       read requests, never answer
//	crash      exit 3 on the first request
//	once       answer like ok, then exit
//	slowstart  sleep args[1] ms before reading
//	slowfirst  sleeps 10 s before answering in the starting position
//	stderr     write to stderr, then answer like ok
//	child      start a child in the group, write its pid to args[1], hang
//	sleep      sleep for a minute (the child)
//	log        append each request line to the file args[1], wait args[2]
//	           ms, then answer like ok (-1 when there is no legal move)
func fakeJSONLine(args []string) int {
	if len(args) == 0 {
		return 2
	}
	behaviour := args[0]
	switch behaviour {
	case "sleep":
		time.Sleep(time.Minute)
		return 0
	case "slowstart":
		ms, _ := strconv.Atoi(args[1])
		time.Sleep(time.Duration(ms) * time.Millisecond)
	case "child":
		exe, _ := os.Executable()
		c := exec.Command(exe, "sleep")
		if err := c.Start(); err != nil {
			return 4
		}
		if err := os.WriteFile(args[1], []byte(strconv.Itoa(c.Process.Pid)), 0o600); err != nil {
			return 4
		}
	}
	var logFile *os.File
	logDelay := time.Duration(0)
	if behaviour == "log" {
		f, err := os.OpenFile(args[1], os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return 4
		}
		defer f.Close()
		logFile = f
		ms, _ := strconv.Atoi(args[2])
		logDelay = time.Duration(ms) * time.Millisecond
	}
	for l := range stdinLines() {
		if logFile != nil {
			_, _ = logFile.WriteString(l + "\n")
		}
		req, err := othello.ParseEngineRequest([]byte(l))
		if err != nil {
			say("cannot parse: %v", err)
			continue
		}
		pos, err := req.Position()
		if err != nil {
			say("bad position: %v", err)
			continue
		}
		legal := pos.LegalMoves()
		first := -1
		if len(legal) > 0 {
			first = legal[0]
		}
		switch behaviour {
		case "ok", "slowstart":
			say(`{"move": %d}`, first)
		case "log":
			time.Sleep(logDelay)
			say(`{"move": %d}`, first)
		case "coord":
			sq := othello.SquareName(legal[len(legal)-1], pos.Size())
			b, _ := json.Marshal(map[string]string{"move": string(sq[0]-'a'+'A') + sq[1:]})
			say("%s", b)
		case "wire":
			say(`{"move": %d}`, req.LegalMoves[0])
		case "garbage":
			say("thinking...")
			say("{not json")
			say(`{"info": "depth 3"}`)
			say("")
			say(`  {"move": %d, "score": 1.5}  `, first)
		case "illegal":
			say(`{"move": %d}`, pos.Black.First())
		case "outside":
			say(`{"move": 64}`)
		case "pass":
			say(`{"move": -1}`)
		case "badmove":
			say(`{"move": "zz"}`)
		case "junk": // prints, but never an answer
			say("hello, I am not JSON")
		case "hang", "child":
		case "crash":
			return 3
		case "once":
			say(`{"move": %d}`, first)
			return 0
		case "slowfirst":
			if pos.Black.Count()+pos.White.Count() == 4 {
				time.Sleep(10 * time.Second)
			}
			say(`{"move": %d}`, first)
		case "stderr":
			fmt.Fprintln(os.Stderr, "fake engine diagnostic")
			say(`{"move": %d}`, first)
		default:
			return 2
		}
	}
	return 0
}
