// Package egaroucidtest provides a fake Egaroucid for Console for the
// tests of the packages that drive Egaroucid (the adapter, the appliance):
// a test binary that doubles as the fake, laid out on disk as Egaroucid
// is (a binary with a resources/ folder beside it).
//
// A package's TestMain calls [Main]; its tests call [Install] for a binary
// path to give the adapter. The fake answers like Egaroucid with
// -noboard: version, setboard, settime, go (the first legal move, in a row
// of its answer table), quit.
//
// Files: fake.go ([Main], [Install], the fake), real.go ([Real], the real
// program for the tests that run it), hog_linux.go and hog_other.go (the
// memory a fake holds to play an over-share build).
//
// It may import engines/othello and engines/internal/enginetest (the
// fake-engine plumbing); non-test code never imports it.
package egaroucidtest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"flipbot.dev/flipbot/engines/internal/enginetest"
	"flipbot.dev/flipbot/engines/othello"
)

// Env is the variable that makes a test binary run as the fake.
const Env = "FLIPBOT_FAKE_EGAROUCID"

// BehaviourFile is the file beside the fake binary that names its
// behaviour when the command line does not (Install writes it): the
// adapter's callers, like the appliance, pass no -fake argument.
const BehaviourFile = "fake-behaviour"

// StartLine begins the first line the fake writes on stderr at every
// start, followed by its GLIBC_TUNABLES: a test counts the fake's starts
// (and reads its environment) from the adapter's log of it.
const StartLine = "env GLIBC_TUNABLES="

// HogMiB is how much memory the "hog" behaviours allocate and touch
// unless their argument says.
const HogMiB = 256

// Main is a TestMain: a test binary started by the adapter as Egaroucid
// runs the fake; otherwise it runs the tests.
func Main(m *testing.M) { enginetest.RunFakeOrTests(m, Env, Fake) }

// Install lays out a fake Egaroucid in a new temporary directory:
// Egaroucid_for_Console.out (a link to this test binary), resources/, and
// the behaviour, when given, in BehaviourFile. It returns the binary's path.
func Install(t testing.TB, behaviour string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "Egaroucid_for_Console.out")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "resources"), 0o755); err != nil {
		t.Fatal(err)
	}
	if behaviour != "" {
		if err := os.WriteFile(filepath.Join(dir, BehaviourFile), []byte(behaviour+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// Fake behaves like Egaroucid for Console with -noboard: a "> " prompt
// without newline before reading each command, version, setboard, settime
// (echoed to stderr), go answering the first legal move in a row of the
// answer table (with -quiet: the move alone, in lower case). "-fake B" (or
// BehaviourFile in its folder) picks a behaviour: showvalue (-quiet "f5
// 3"), slow (go takes a minute), slowstart (go takes a minute in the
// starting position), crash (exit on go), illegal (answer a1), garbage (an
// error line before the answer), loading (the first command is read after
// 600 ms, as a real start-up), startup MS (the same after MS milliseconds:
// a program that takes that long to become ready), deaf (never reads a
// command), hog [MiB]
// (HogMiB, or MiB, allocated and touched before the first command is read,
// like the stock build's tables), hogslow [MiB] (the same, then 30 s before
// reading it), think MS (go takes MS milliseconds).
func Fake(args []string) int {
	behaviour := ""
	if i := slices.Index(args, "-fake"); i >= 0 && i+1 < len(args) {
		behaviour = args[i+1]
	} else if b, err := os.ReadFile(BehaviourFile); err == nil {
		behaviour = strings.TrimSpace(string(b))
	}
	behaviour, arg, _ := strings.Cut(behaviour, " ")
	n, _ := strconv.Atoi(strings.TrimSpace(arg))
	if !slices.Contains(args, "-noboard") {
		return 6
	}
	quiet := slices.Contains(args, "-quiet") || behaviour == "showvalue"
	fmt.Fprintln(os.Stderr, StartLine+os.Getenv("GLIBC_TUNABLES"))
	if fi, err := os.Stat("resources"); err != nil || !fi.IsDir() {
		fmt.Fprintln(os.Stderr, "[ERROR] resources not found")
		return 6
	}
	switch behaviour {
	case "loading":
		time.Sleep(600 * time.Millisecond)
	case "startup":
		time.Sleep(time.Duration(n) * time.Millisecond)
	case "deaf":
		time.Sleep(time.Hour)
	case "hog", "hogslow":
		mib := HogMiB
		if n > 0 {
			mib = n
		}
		mem, err := hog(mib << 20)
		if err != nil {
			fmt.Fprintln(os.Stderr, "[ERROR] hog:", err)
			return 7
		}
		defer keep(mem)
		if behaviour == "hogslow" {
			time.Sleep(30 * time.Second)
		}
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
			p, err := parseBoard(arg)
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
			case "think":
				time.Sleep(time.Duration(n) * time.Millisecond)
			case "crash":
				return 3
			case "illegal":
				fmt.Fprintln(out, "a1")
				continue
			case "garbage":
				fmt.Fprintln(out, "[ERROR] something odd")
				fmt.Fprintln(out, "")
			}
			answer(out, pos, quiet, behaviour == "showvalue")
		case "quit", "exit":
			return 0
		}
	}
}

// parseBoard reads setboard's argument: 64 squares (X, O, -) and the side
// to move.
func parseBoard(arg string) (othello.Position, error) {
	b := strings.ReplaceAll(arg, " ", "")
	if len(b) != 65 {
		return othello.Position{}, fmt.Errorf("invalid argument %q", arg)
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
	return othello.FromBoard(othello.Std, board, turn, othello.Placed{}, nil)
}

// answer prints the answer to go: the first legal move.
func answer(out *bufio.Writer, pos othello.Position, quiet, value bool) {
	legal := pos.LegalMoves()
	mv := "ps"
	if len(legal) > 0 {
		mv = othello.SquareName(legal[0], 8)
	}
	if quiet {
		if value {
			mv += " 3"
		}
		fmt.Fprintln(out, mv)
		return
	}
	empties := 64 - pos.Black.Count() - pos.White.Count()
	fmt.Fprintln(out, "|          Level|          Depth|           Move|          Score|           Time|          Nodes|            NPS|")
	if mv == "ps" {
		fmt.Fprintln(out, "|              -|              -|             ps|              -|  000:00:00.000|              0|              0|")
		return
	}
	fmt.Fprintf(out, "|              -|%15s|%15s|%15s|  000:00:01.250|         123456|          98765|\n",
		fmt.Sprintf("%d@100%%", min(empties, 20)), mv, "-2")
}
