package imagetest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The package's scratch directory (made by TestMain), flipbot-image built
// once in it, and the Egaroucid stage built once in it.
var (
	scratch   string
	imageTool string
	stageOnce sync.Once
	stageDir  string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "flipbot-imagetest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	scratch = dir
	if os.Getenv("FLIPBOT_IMAGE_TESTS") != "" {
		// One flipbot-image for every make run: the tests that boot
		// images run side by side, and their make runs would otherwise
		// each rebuild build/flipbot-image.
		imageTool = filepath.Join(dir, "flipbot-image")
		_, file, _, _ := runtime.Caller(0)
		cmd := exec.Command("go", "build", "-o", imageTool, "./cmd/flipbot-image")
		cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build flipbot-image: %v\n%s", err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// repoRoot is the repository's top directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// need skips the test unless the image tests are asked for and the named
// commands exist.
func need(t *testing.T, cmds ...string) {
	t.Helper()
	if os.Getenv("FLIPBOT_IMAGE_TESTS") == "" {
		t.Skip("SKIPPED: image tests run with make test-image (FLIPBOT_IMAGE_TESTS=1)")
	}
	for _, c := range cmds {
		if c == "gok" {
			c = gok()
		}
		if _, err := exec.LookPath(c); err != nil {
			if _, err := os.Stat(c); err != nil {
				t.Skipf("SKIPPED: %s not found (gok: go install github.com/gokrazy/tools/cmd/gok@latest; the rest: make deps)", c)
			}
		}
	}
}

func gok() string {
	if g := os.Getenv("GOK"); g != "" {
		return g
	}
	return "gok"
}

// makeTarget runs make in the repository with vars, logging its output.
func makeTarget(t *testing.T, target string, vars ...string) time.Duration {
	t.Helper()
	start := time.Now()
	args := append([]string{"-C", repoRoot(t), target, "GOK=" + gok(), "IMAGETOOL=" + imageTool, "IMAGETOOL_PREBUILT=1"}, vars...)
	cmd := exec.Command("make", args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("make %s:\n%s", strings.Join(args[2:], " "), tail(string(out), 60))
	}
	require.NoError(t, err, "make %s", target)
	return time.Since(start)
}

// runCmd runs a command and returns its combined output.
func runCmd(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	require.NoError(t, err, "%s %s: %s", name, strings.Join(args, " "), out)
	return string(out)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// status is the part of flipbot's /api/status the tests read.
type status struct {
	State   string `json:"state"`
	Online  bool   `json:"online"`
	Token   string `json:"token_source"`
	Matches []struct {
		ID   int64  `json:"id"`
		Mode string `json:"game_mode"`
	} `json:"matches"`
	Results []json.RawMessage `json:"recent_results"`
}

// owner is a browser on the owner's laptop, talking to flipbot's pages.
type owner struct {
	t     *testing.T
	base  string
	c     *http.Client
	trail *stepTrail // the guest's, told what the owner waits for
}

func newOwner(t *testing.T, base string, trail *stepTrail) *owner {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &owner{t: t, base: base, trail: trail, c: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (o *owner) get(path string) (int, string, error) {
	resp, err := o.c.Get(o.base + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b), err
}

func (o *owner) status() (status, error) {
	var st status
	code, body, err := o.get("/api/status")
	if err != nil {
		return st, err
	}
	if code != http.StatusOK {
		return st, fmt.Errorf("/api/status: %d", code)
	}
	return st, json.Unmarshal([]byte(body), &st)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// setup fills in the first-boot form: the pairing code and the token.
func (o *owner) setup(code, token string) {
	o.t.Helper()
	st, body, err := o.get("/")
	require.NoError(o.t, err)
	require.Equal(o.t, http.StatusOK, st)
	m := csrfRE.FindStringSubmatch(body)
	require.NotNil(o.t, m, "the home page offers the setup form:\n%s", tail(body, 20))
	form := url.Values{"csrf": {m[1]}, "code": {code}, "token": {token}}
	resp, err := o.c.PostForm(o.base+"/setup", form)
	require.NoError(o.t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(o.t, http.StatusSeeOther, resp.StatusCode, "setup accepted:\n%s", tail(string(b), 20))
}

// waitFor polls the status until ok holds or the timeout passes.
func (o *owner) waitFor(what string, timeout time.Duration, ok func(status) bool) status {
	o.t.Helper()
	o.trail.set(what)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last status
	var lastErr error
	for {
		st, err := o.status()
		if err == nil && ok(st) {
			return st
		}
		last, lastErr = st, err
		select {
		case <-ctx.Done():
			o.t.Fatalf("%s: not reached in %s (last status %+v, err %v)", what, timeout, last, lastErr)
		case <-time.After(time.Second):
		}
	}
}

// gameSummary is the part of an /api/games entry the tests read.
type gameSummary struct {
	ID       string          `json:"id"`
	Mode     string          `json:"mode"`
	Moves    int             `json:"moves"`
	Analysis json.RawMessage `json:"analysis,omitempty"`
}

// games lists the recorded games, newest first.
func (o *owner) games() ([]gameSummary, error) {
	code, body, err := o.get("/api/games")
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("/api/games: %d", code)
	}
	var list struct {
		Games []gameSummary `json:"games"`
	}
	return list.Games, json.Unmarshal([]byte(body), &list)
}

// waitForGame polls /api/games until a finished game with moves is
// recorded and returns it.
func (o *owner) waitForGame(timeout time.Duration) gameSummary {
	o.t.Helper()
	deadline := time.Now().Add(timeout)
	var lastErr error
	for time.Now().Before(deadline) {
		gs, err := o.games()
		for _, g := range gs {
			if g.Moves > 0 {
				return g
			}
		}
		lastErr = err
		time.Sleep(2 * time.Second)
	}
	o.t.Fatalf("no finished game recorded in %s (last error %v)", timeout, lastErr)
	return gameSummary{}
}

// requireGame checks that the game is still listed, on /api/games and on
// the games page, and that it replays with all its moves.
func (o *owner) requireGame(want gameSummary, when string) {
	o.t.Helper()
	gs, err := o.games()
	require.NoError(o.t, err)
	var found bool
	for _, g := range gs {
		found = found || g.ID == want.ID && g.Mode == want.Mode && g.Moves == want.Moves
	}
	require.True(o.t, found, "game %s listed by /api/games %s (list: %+v)", want.ID, when, gs)

	code, body, err := o.get("/api/games/" + want.ID)
	require.NoError(o.t, err)
	require.Equal(o.t, http.StatusOK, code, "/api/games/%s %s", want.ID, when)
	var rec struct {
		Moves []json.RawMessage `json:"moves"`
	}
	require.NoError(o.t, json.Unmarshal([]byte(body), &rec))
	require.Len(o.t, rec.Moves, want.Moves, "every move of game %s kept %s", want.ID, when)

	code, body, err = o.get("/games")
	require.NoError(o.t, err)
	require.Equal(o.t, http.StatusOK, code)
	require.Contains(o.t, body, "/games/"+want.ID, "the games page lists game %s %s", want.ID, when)
	code, body, err = o.get("/games/" + want.ID)
	require.NoError(o.t, err)
	require.Equal(o.t, http.StatusOK, code)
	require.Equal(o.t, want.Moves+1, strings.Count(body, `class="ply-info" data-ply="`), "the replay steps through every move %s", when)
}

// waitForAnalysis polls /api/games until a game with moves has its
// analysis (made in the background while no match runs) and returns it.
func (o *owner) waitForAnalysis(timeout time.Duration) gameSummary {
	o.t.Helper()
	deadline := time.Now().Add(timeout)
	var lastErr error
	for time.Now().Before(deadline) {
		gs, err := o.games()
		for _, g := range gs {
			if g.Moves > 0 && len(g.Analysis) > 0 && string(g.Analysis) != "null" {
				return g
			}
		}
		lastErr = err
		time.Sleep(5 * time.Second)
	}
	o.t.Fatalf("no game analysed in %s (last error %v)", timeout, lastErr)
	return gameSummary{}
}

// runTool runs a command and returns its output and error without failing.
func runTool(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

// runWithRSS runs a command with stdin and returns its stdout and peak
// resident size (the process's maximum RSS, in bytes).
func runWithRSS(t *testing.T, stdin, name string, args ...string) (string, int64) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	require.NoError(t, err, "%s: %s", name, out)
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss * 1024
	}
	return string(out), rss
}

// makeRun is the outcome of a make run in the background.
type makeRun struct {
	text string
	err  error
	took time.Duration
}

// makeAsync runs make in the repository with vars in the background; the
// channel gives its combined output once it ends.
func makeAsync(t *testing.T, target string, vars ...string) <-chan makeRun {
	t.Helper()
	args := append([]string{"-C", repoRoot(t), target, "GOK=" + gok(), "IMAGETOOL=" + imageTool, "IMAGETOOL_PREBUILT=1"}, vars...)
	done := make(chan makeRun, 1)
	go func() {
		start := time.Now()
		out, err := exec.Command("make", args...).CombinedOutput()
		done <- makeRun{text: string(out), err: err, took: time.Since(start)}
	}()
	return done
}

// requireMatchResult checks that the device recorded match id's legs
// with the match's result, none finished by a disconnect.
func (o *owner) requireMatchResult(id int64) {
	o.t.Helper()
	code, body, err := o.get("/api/games")
	require.NoError(o.t, err)
	require.Equal(o.t, http.StatusOK, code)
	var list struct {
		Games []struct {
			ID          string `json:"id"`
			MatchID     int64  `json:"match_id"`
			LegStatus   string `json:"leg_status"`
			MatchResult string `json:"match_result"`
			Reason      string `json:"reason"`
		} `json:"games"`
	}
	require.NoError(o.t, json.Unmarshal([]byte(body), &list))
	n := 0
	for _, g := range list.Games {
		if g.MatchID != id {
			continue
		}
		n++
		o.t.Logf("match %d: game %s: leg %s, match result %q, reason %q", id, g.ID, g.LegStatus, g.MatchResult, g.Reason)
		require.NotEmpty(o.t, g.MatchResult, "game %s of match %d carries the match's result", g.ID, id)
		require.NotEqual(o.t, "aborted", g.MatchResult, "match %d was played out", id)
		require.NotEqual(o.t, "disconnect", g.Reason, "match %d was not lost by disconnect", id)
	}
	require.Positive(o.t, n, "the device recorded match %d (games: %s)", id, tail(body, 20))
}

// stepTrail is what a test of a booted guest waits for now, so that a
// failure says where it stopped even when only the end of the output is
// kept (CI shows the last lines).
type stepTrail struct {
	mu    sync.Mutex
	start time.Time // the guest's power-on
	what  string
	at    time.Duration
}

func (s *stepTrail) set(what string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.what, s.at = what, time.Since(s.start)
}

func (s *stepTrail) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.what == "" {
		return "before its first step"
	}
	return fmt.Sprintf("while waiting for %s (from %.0f s after power-on; failed %.0f s after it)",
		s.what, s.at.Seconds(), time.Since(s.start).Seconds())
}

// failures collects the subtests' failures of a parallel image test, to
// be said again when the test ends: the subtests' own lines come in the
// middle of the output of two tests run side by side.
type failures struct {
	mu    sync.Mutex
	lines []string
	notes []string // said at the end whether or not the test failed
}

// note records something the test worked around (a power-cycle), to be
// said again at the parent test's end.
func (f *failures) note(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notes = append(f.notes, s)
}

// add records a failed subtest: where it stopped and flipbot's last lines.
func (f *failures) add(name, step, logTail string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lines = append(f.lines, fmt.Sprintf("%s failed %s; flipbot's last lines:\n%s", name, step, logTail))
}

// report says the failures again at the end of t (the parent test).
func (f *failures) report(t *testing.T) {
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, l := range f.notes {
			t.Log("note: " + l)
		}
		for _, l := range f.lines {
			t.Log(l)
		}
	})
}
