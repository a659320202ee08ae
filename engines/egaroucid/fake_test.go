package egaroucid

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"flipbot.dev/flipbot/engines/internal/enginetest"
	"flipbot.dev/flipbot/engines/othello"
)

// fakeEnv makes the test binary act as a fake Egaroucid for Console.
const fakeEnv = "FLIPBOT_FAKE_EGAROUCID"

func TestMain(m *testing.M) { enginetest.RunFakeOrTests(m, fakeEnv, fakeEgaroucid) }

// fakeEgaroucid behaves like Egaroucid for Console with -noboard: a "> "
// prompt without newline before reading each command, version, setboard,
// settime (echoed to stderr), go answering the first legal move in a row
// of the answer table (with -quiet: the move alone, in lower case). "-fake
// B" picks a behaviour: showvalue (-quiet "f5 3"), slow (go takes a
// minute), slowstart (go takes a minute in the starting position), crash
// (exit on go), illegal (answer a1), garbage (an error line before the
// answer), loading (the first command is read after 600 ms, as a real
// start-up), deaf (never reads a command).
func fakeEgaroucid(args []string) int {
	behaviour := ""
	if i := slices.Index(args, "-fake"); i >= 0 && i+1 < len(args) {
		behaviour = args[i+1]
	}
	if !slices.Contains(args, "-noboard") {
		return 6
	}
	quiet := slices.Contains(args, "-quiet") || behaviour == "showvalue"
	if fi, err := os.Stat("resources"); err != nil || !fi.IsDir() {
		fmt.Fprintln(os.Stderr, "[ERROR] resources not found")
		return 6
	}
	switch behaviour {
	case "loading":
		time.Sleep(600 * time.Millisecond)
	case "deaf":
		time.Sleep(time.Hour)
	}
	sc := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	pos := othello.New(othello.Std)
	for {
		fmt.Fprint(out, "> ")
		_ = out.Flush()
		if !sc.Scan() {
			return 0
		}
		cmd, arg, _ := strings.Cut(sc.Text(), " ")
		switch cmd {
		case "version":
			fmt.Fprintln(out, "Egaroucid for Console 7.8.0 (fake)")
			fmt.Fprintln(out, "    @date 2026")
			fmt.Fprintln(out, "")
		case "setboard":
			b := strings.ReplaceAll(arg, " ", "")
			if len(b) != 65 {
				fmt.Fprintln(os.Stderr, "[ERROR] invalid argument")
				continue
			}
			board := make([]int, 64)
			for i := 0; i < 64; i++ {
				switch b[i] {
				case 'X':
					board[i] = 1
				case 'O':
					board[i] = 2
				}
			}
			turn := othello.Black
			if b[64] == 'O' {
				turn = othello.White
			}
			p, err := othello.FromBoard(othello.Std, board, turn, othello.Placed{}, nil)
			if err != nil {
				fmt.Fprintln(os.Stderr, "[ERROR]", err)
				continue
			}
			pos = p
		case "settime":
			fmt.Fprintln(os.Stderr, "got settime", arg)
		case "go":
			fmt.Fprintln(os.Stderr, "time limit: 1234")
			switch behaviour {
			case "slow":
				time.Sleep(time.Minute)
			case "slowstart":
				if pos.Black.Count()+pos.White.Count() == 4 {
					time.Sleep(time.Minute)
				}
			case "crash":
				return 3
			case "illegal":
				fmt.Fprintln(out, "a1")
				continue
			case "garbage":
				fmt.Fprintln(out, "[ERROR] something odd")
				fmt.Fprintln(out, "")
			}
			legal := pos.LegalMoves()
			mv := "ps"
			if len(legal) > 0 {
				mv = othello.SquareName(legal[0], 8)
			}
			if quiet {
				if behaviour == "showvalue" {
					mv += " 3"
				}
				fmt.Fprintln(out, mv)
				continue
			}
			empties := 64 - pos.Black.Count() - pos.White.Count()
			fmt.Fprintln(out, "|          Level|          Depth|           Move|          Score|           Time|          Nodes|            NPS|")
			if mv == "ps" {
				fmt.Fprintln(out, "|              -|              -|             ps|              -|  000:00:00.000|              0|              0|")
				continue
			}
			fmt.Fprintf(out, "|              -|%15s|%15s|%15s|  000:00:01.250|         123456|          98765|\n",
				fmt.Sprintf("%d@100%%", min(empties, 20)), mv, "-2")
		case "quit", "exit":
			return 0
		}
	}
}
