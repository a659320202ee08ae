package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// solveLine is one position's result with -json.
type solveLine struct {
	Line  int    `json:"line"`
	Best  string `json:"best"`
	Score int    `json:"score"`
	Nodes uint64 `json:"nodes"`
	MS    int64  `json:"ms"`
}

// parseInterspersed parses flags that may come before or after positional
// arguments ("solve FILE -threads 2") and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// runSolve solves each position of an OBF file exactly (empties to the
// winner, as the FFO suites score), printing per position the best move,
// the score for the side to move, nodes, time and nodes/s, then a total.
// When the file lists move scores, a wrong answer is flagged and makes the
// exit code 1.
func runSolve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ef engineFlags
	ef.register(fs)
	asJSON := fs.Bool("json", false, "one JSON object per position")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(files) != 1 {
		fmt.Fprintln(stderr, "usage: flipengine solve FILE.obf [-threads T] [-hash MB] [-json]")
		return 2
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "flipengine solve: %v\n", err)
		return 1
	}
	eng, err := ef.engine(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine solve: %v\n", err)
		return 1
	}
	defer eng.Close()
	enc := json.NewEncoder(stdout)
	var totalNodes uint64
	var totalTime time.Duration
	solved, wrong := 0, 0
	for i, text := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(text) == "" || strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		line := i + 1
		p, err := search.ParseOBF(text)
		if err != nil {
			fmt.Fprintf(stderr, "flipengine solve: line %d: %v\n", line, err)
			wrong++
			continue
		}
		eng.ClearHash()
		r, err := eng.Search(context.Background(), p.Position, search.Limits{Exact: true, EmptiesToWinner: true})
		if errors.Is(err, search.ErrNoMove) || err != nil {
			fmt.Fprintf(stderr, "flipengine solve: line %d: %v\n", line, err)
			wrong++
			continue
		}
		score := int(r.Score)
		if r.Move == othello.Pass {
			// A pass, or the game's end: exactScore plays it out.
			start := time.Now()
			s, nodes, err := exactScore(context.Background(), eng, p.Position)
			if err == nil {
				score = s
				r.Nodes += nodes
				r.Elapsed += time.Since(start)
			}
		}
		solved++
		totalNodes += r.Nodes
		totalTime += r.Elapsed
		best := othello.SquareName(r.Move, 8)
		verdict := ""
		if want, ok := p.Best(); ok {
			if got, listed := p.Scores[r.Move]; score != want || (r.Move != othello.Pass && (!listed || got != want)) {
				verdict = fmt.Sprintf("  WRONG: best listed %+d", want)
				wrong++
			} else {
				verdict = "  ok"
			}
		}
		if *asJSON {
			_ = enc.Encode(solveLine{Line: line, Best: best, Score: score, Nodes: r.Nodes, MS: r.Elapsed.Milliseconds()})
			continue
		}
		fmt.Fprintf(stdout, "line %3d  %-4s %+3d  %13d nodes  %9.3f s  %7.2f Mn/s%s\n",
			line, best, score, r.Nodes, r.Elapsed.Seconds(), mnps(r.Nodes, r.Elapsed), verdict)
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "total     %d positions  %13d nodes  %9.3f s  %7.2f Mn/s\n",
			solved, totalNodes, totalTime.Seconds(), mnps(totalNodes, totalTime))
	}
	if wrong > 0 {
		fmt.Fprintf(stderr, "flipengine solve: %d positions unreadable or wrong\n", wrong)
		return 1
	}
	return 0
}

// mnps is millions of nodes per second.
func mnps(nodes uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(nodes) / d.Seconds() / 1e6
}
