package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// specLines returns the spec's example requests with a short budget.
func specLines(t *testing.T) []string {
	data, err := os.ReadFile("../../engines/othello/testdata/spec_requests.jsonl")
	require.NoError(t, err)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		r, err := othello.ParseEngineRequest([]byte(l))
		require.NoError(t, err)
		r.BudgetMS = 80
		b, err := json.Marshal(r)
		require.NoError(t, err)
		out = append(out, string(b))
	}
	return out
}

func TestEngineCommand(t *testing.T) {
	reqs := specLines(t)
	var r othello.EngineRequest
	require.NoError(t, json.Unmarshal([]byte(reqs[0]), &r))
	bad := r
	bad.Board = []int{1, 2} // readable, but not a board: answered from legal_moves
	badLine, err := json.Marshal(bad)
	require.NoError(t, err)
	input := []string{"not json", "", "{\"board\":", strings.Repeat("x", maxLine+10), string(badLine)}
	input = append(input, reqs...)
	var out, errb bytes.Buffer
	code := run([]string{"engine", "-threads", "1", "-hash", "1"}, strings.NewReader(strings.Join(input, "\n")+"\n"), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 1+len(reqs), "one answer per readable request:\n%s", out.String())
	var first struct{ Move int }
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	assert.Equal(t, r.LegalMoves[0], first.Move, "the unreadable board falls back to legal_moves")
	for i, l := range lines[1:] {
		var ans struct{ Move int }
		require.NoError(t, json.Unmarshal([]byte(l), &ans), l)
		var req othello.EngineRequest
		require.NoError(t, json.Unmarshal([]byte(reqs[i]), &req))
		assert.Contains(t, req.LegalMoves, ans.Move, "%s", req.GameMode)
	}
	msgs := errb.String()
	assert.Contains(t, msgs, "want a JSON object")
	assert.Contains(t, msgs, "over")
	assert.Contains(t, msgs, "playing")
}

// nboardSession runs the nboard command on pipes.
type nboardSession struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan int
	errb  *bytes.Buffer
}

func startNBoard(t *testing.T) *nboardSession {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &nboardSession{t: t, in: inW, lines: make(chan string, 100), done: make(chan int, 1), errb: &bytes.Buffer{}}
	go func() {
		s.done <- run([]string{"nboard", "-threads", "1", "-hash", "1"}, inR, outW, &lockedWriter{w: s.errb})
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	return s
}

// lockedWriter is safe to write from the command while the test reads.
type lockedWriter struct {
	w io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) { return l.w.Write(p) }

func (s *nboardSession) send(lines ...string) {
	for _, l := range lines {
		_, err := io.WriteString(s.in, l+"\n")
		require.NoError(s.t, err)
	}
}

// expect reads lines until one starts with prefix and returns it.
func (s *nboardSession) expect(prefix string) string {
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			require.True(s.t, ok, "output ended waiting for %q", prefix)
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timeout:
			s.t.Fatalf("no %q line", prefix)
		}
	}
}

func TestNBoardCommand(t *testing.T) {
	s := startNBoard(t)
	s.send("nboard 2")
	assert.Equal(t, "set myname flipbot", s.expect("set myname"))
	s.send("set depth 4", "set game (;GM[Othello]PC[test]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6];)", "go")
	ans := s.expect("===")
	mv, _, _ := strings.Cut(strings.TrimPrefix(ans, "=== "), "/")
	pos := othello.New(othello.Std)
	pos, _ = pos.Play(37)
	pos, _ = pos.Play(45)
	sq, err := othello.ParseSquare(mv, 8)
	require.NoError(t, err, ans)
	assert.True(t, pos.Legal().Has(sq), "%s is legal", mv)
	s.expect("nodestats")
	// The engine did not play its own move: the controller sends it.
	s.send("move "+mv+"/0.5/1.2", "hint 1")
	hint := s.expect("search ")
	assert.Len(t, strings.Fields(hint), 5, hint)
	s.send("ping 7")
	s.expect("pong 7")
	// Malformed lines: a message on stderr each, and the engine goes on.
	s.send("bogus", "set depth 99", "move z9", "set game (;GM[Chess];)", "ping 8")
	s.expect("pong 8")
	// A ping stops a long search at once.
	s.send("set depth 60", "go", "ping 9")
	s.expect("pong 9")
	s.send("quit")
	assert.Equal(t, 0, <-s.done)
	for _, want := range []string{"unknown command", "want 1–60", "move \"z9\"", "set game"} {
		assert.Contains(t, s.errb.String(), want)
	}
}

func TestSolveCommand(t *testing.T) {
	data, err := os.ReadFile("../../engines/search/testdata/fforum-1-19.obf")
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")[:3]
	file := filepath.Join(t.TempDir(), "three.obf")
	require.NoError(t, os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600))

	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"solve", file, "-threads", "1", "-hash", "1", "-json"}, nil, &out, &errb), errb.String())
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, got, 3)
	for i, l := range got {
		var r solveLine
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		p, err := search.ParseOBF(lines[i])
		require.NoError(t, err)
		want, _ := p.Best()
		assert.Equal(t, i+1, r.Line)
		assert.Equal(t, want, r.Score)
		sq, err := othello.ParseSquare(r.Best, 8)
		require.NoError(t, err)
		assert.Equal(t, want, p.Scores[sq])
	}

	out.Reset()
	require.Equal(t, 0, run([]string{"solve", "-threads", "1", "-hash", "1", file}, nil, &out, &errb), errb.String())
	assert.Contains(t, out.String(), "total     3 positions")
	assert.Equal(t, 3, strings.Count(out.String(), " ok\n"))

	require.NoError(t, os.WriteFile(file, []byte("not a position\n"), 0o600))
	assert.Equal(t, 1, run([]string{"solve", file}, nil, &out, &errb))
	assert.Equal(t, 2, run([]string{"solve"}, nil, &out, &errb))
}

func TestProbCutCommand(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"probcut", "-hash", "1", "-positions", "3", "-modes", "std,anti", "-depth8", "4"}, nil, &out, &errb), errb.String())
	f, err := parser.ParseFile(token.NewFileSet(), "probcut_pattern.go", out.Bytes(), 0)
	require.NoError(t, err, "%s", out.String())
	assert.Equal(t, "search", f.Name.Name)
	assert.Contains(t, out.String(), "func patternProbCut() *ProbCut")
	assert.Contains(t, out.String(), "Mode: othello.Anti")
	assert.Contains(t, errb.String(), "depth  4 from 2")

	file := filepath.Join(t.TempDir(), "pc.go")
	require.Equal(t, 0, run([]string{"probcut", "-hash", "1", "-positions", "3", "-modes", "std", "-depth8", "3", "-out", file}, nil, &out, &errb), errb.String())
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(data), "Mode: othello.Std")
	out.Reset()
	require.Equal(t, 0, run([]string{"probcut", "-eval", "baseline", "-hash", "1", "-positions", "3", "-modes", "std", "-depth8", "3"}, nil, &out, &errb), errb.String())
	assert.Contains(t, out.String(), "func baselineProbCut() *ProbCut")
	assert.Equal(t, 2, run([]string{"probcut", "-modes", "chess"}, nil, &out, &errb))
	assert.Equal(t, 2, run([]string{"probcut", "-eval", "perfect"}, nil, &out, &errb))
	assert.Equal(t, 1, run([]string{"probcut", "-hash", "1", "-positions", "3", "-modes", "std", "-depth8", "3", "-out", filepath.Join(file, "x", "y")}, nil, &out, &errb))
}

func FuzzEngineRequestLine(f *testing.F) {
	for _, l := range []string{`{"board":[],"legal_moves":[3]}`, `{"game_mode":"std","board_size":8}`, "x"} {
		f.Add(l)
	}
	if data, err := os.ReadFile("../../engines/othello/testdata/spec_requests.jsonl"); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			f.Add(l)
		}
	}
	eng := search.New(search.Options{Threads: 1, HashMB: 1})
	f.Fuzz(func(t *testing.T, line string) {
		req, err := othello.ParseEngineRequest([]byte(line))
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		defer cancel()
		mv := answerRequest(ctx, eng, req, time.Duration(req.BudgetMS)*time.Millisecond, 0, io.Discard)
		if pos, err := req.Position(); err == nil && req.LegalMoves == nil {
			if pos.Legal().IsZero() {
				require.Equal(t, othello.Pass, mv)
			} else {
				require.True(t, pos.Legal().Has(mv), "move %d", mv)
			}
		}
	})
}

func FuzzNBoardLine(f *testing.F) {
	for _, l := range []string{"nboard 2", "set depth 3", "go", "move F5", "hint 2", "ping 1", "set game (;GM[Othello]BO[8 " + strings.Repeat("-", 27) + "O*------*O" + strings.Repeat("-", 27) + " *];)"} {
		f.Add(l)
	}
	eng := search.New(search.Options{Threads: 1, HashMB: 1})
	f.Fuzz(func(t *testing.T, line string) {
		s := &nboardServer{eng: eng, out: io.Discard, errOut: io.Discard, depth: 2, pos: othello.New(othello.Std)}
		s.handle(line)
		s.handle("go")
		s.stopSearch()
	})
}

func TestBenchCommandPicksPhasesAndModes(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"bench", "-threads", "1", "-hash", "4", "-end=false", "-time", "50ms", "-modes", "octagon,anti"}, nil, &out, &errb), errb.String())
	assert.Contains(t, out.String(), "octagon-mid")
	assert.Contains(t, out.String(), "anti-mid")
	assert.NotContains(t, out.String(), "-end")
	assert.NotContains(t, out.String(), "std-")
	assert.Contains(t, out.String(), "total")
	assert.Equal(t, 2, run([]string{"bench", "-modes", "go"}, nil, &out, &errb))
}
