package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/internal/enginetest"
)

const fakeEnv = "FLIPBOT_FAKE_PROC"

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) == "1" {
		os.Exit(fake(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fake is the scripted child: args[0] is the behaviour.
func fake(args []string) int {
	switch args[0] {
	case "echo": // echo lines until "quit" or the end of input
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			if sc.Text() == "quit" {
				return 0
			}
			fmt.Println(sc.Text())
		}
		return 0
	case "ignorequit": // only a signal ends it
		fmt.Println("ready")
		time.Sleep(time.Hour)
	case "ignoreterm": // only SIGKILL ends it
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		time.Sleep(time.Hour)
	case "floodstderr": // 10,000 stderr lines at once, then exit
		w := bufio.NewWriter(os.Stderr)
		for i := range 10000 {
			fmt.Fprintf(w, "noise %d\n", i)
		}
		w.Flush()
		return 0
	case "output":
		w := bufio.NewWriter(os.Stdout)
		w.WriteString(strings.Repeat("x", 200<<10) + "\r\n")
		w.WriteString("short\n")
		w.WriteString("tail")
		w.Flush()
		fmt.Fprintln(os.Stderr, "a diagnostic")
		return 0
	case "exit3": // fail at once
		return 3
	case "grandchild": // leave a child holding stdout, print "pid N" of it, exit
		exe, _ := os.Executable()
		c := exec.Command(exe, "ignorequit")
		c.Stdout = os.Stdout
		if err := c.Start(); err != nil {
			return 4
		}
		fmt.Println("pid", c.Process.Pid)
		return 0
	}
	return fakeOS(args)
}

func start(t *testing.T, log *enginetest.Log, cfg Config, args ...string) *Process {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cfg.Path = exe
	cfg.Args = args
	cfg.Env = append(os.Environ(), fakeEnv+"=1", "GORACE=atexit_sleep_ms=0")
	if log != nil {
		cfg.Logger = log.Logger()
	}
	p, err := Start(cfg)
	require.NoError(t, err)
	t.Cleanup(p.Kill)
	return p
}

func next(t *testing.T, p *Process) (string, bool) {
	t.Helper()
	select {
	case l, ok := <-p.Lines():
		return l, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no line from the process")
		return "", false
	}
}

func TestEchoAndQuit(t *testing.T) {
	enginetest.NoLeak(t)
	p := start(t, nil, Config{QuitLine: "quit", QuitGrace: 5 * time.Second}, "echo")
	for _, s := range []string{"hello", "", "ping 1"} {
		require.NoError(t, p.Send(s))
		got, ok := next(t, p)
		require.True(t, ok)
		assert.Equal(t, s, got)
	}
	p.Stop()
	assert.True(t, p.Exited())
	assert.NoError(t, p.ExitErr(), "it left on quit")
	_, ok := <-p.Lines()
	assert.False(t, ok, "Lines is closed after Stop")
	require.ErrorIs(t, p.Send("x"), ErrExited)
	p.Stop() // idempotent
}

func TestStopEscalates(t *testing.T) {
	tests := []struct {
		behaviour string
		want      string
	}{
		{"ignorequit", wantTerminated},
		{"ignoreterm", wantKilled},
	}
	for _, tc := range tests {
		t.Run(tc.behaviour, func(t *testing.T) {
			enginetest.NoLeak(t)
			p := start(t, nil, Config{QuitLine: "quit", QuitGrace: 50 * time.Millisecond, TermGrace: 100 * time.Millisecond}, tc.behaviour)
			got, _ := next(t, p)
			require.Equal(t, "ready", got)
			p.Stop()
			require.Error(t, p.ExitErr())
			assert.Contains(t, p.ExitErr().Error(), tc.want)
		})
	}
}

func TestOutputLinesAndStderr(t *testing.T) {
	enginetest.NoLeak(t)
	var log enginetest.Log
	p := start(t, &log, Config{MaxLineBytes: 1000, Name: "fake"}, "output")
	long, _ := next(t, p)
	assert.Equal(t, strings.Repeat("x", 1000), long, "a long line is cut")
	short, _ := next(t, p)
	assert.Equal(t, "short", short)
	tail, _ := next(t, p)
	assert.Equal(t, "tail", tail, "the last line without a newline is delivered")
	_, ok := next(t, p)
	assert.False(t, ok)
	<-p.Done()
	p.Stop()
	assert.True(t, log.Contains("a diagnostic"), log.String())
	assert.True(t, log.Contains("engine=fake"), log.String())
}

func TestWriteTimeout(t *testing.T) {
	enginetest.NoLeak(t)
	p := start(t, nil, Config{WriteTimeout: 100 * time.Millisecond}, "ignoreterm")
	next(t, p)
	err := p.Send(strings.Repeat("y", 4<<20)) // more than a pipe holds
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrExited))
	p.Kill()
}

func TestDescendantIsKilled(t *testing.T) {
	enginetest.NoLeak(t)
	p := start(t, nil, Config{TermGrace: 100 * time.Millisecond}, "grandchild")
	<-p.Done()
	pid, ready := grandchild(t, p)
	assert.True(t, ready, "the grandchild still writes to our pipe")
	p.Stop()
	require.Eventually(t, func() bool { return !running(pid) }, 5*time.Second, 10*time.Millisecond)
}

// grandchild reads the two lines of the grandchild fake, in either order:
// its child's pid and that child's "ready".
func grandchild(t *testing.T, p *Process) (pid int, ready bool) {
	t.Helper()
	for range 2 {
		l, _ := next(t, p)
		if n, ok := strings.CutPrefix(l, "pid "); ok {
			var err error
			pid, err = strconv.Atoi(n)
			require.NoError(t, err)
		} else {
			ready = ready || l == "ready"
		}
	}
	require.NotZero(t, pid)
	return pid, ready
}

func TestStartErrors(t *testing.T) {
	_, err := Start(Config{})
	require.ErrorIs(t, err, ErrEmptyCommand)
	_, err = Start(Config{Path: filepath.Join(os.TempDir(), "no-such-dir-xyz", "missing")})
	require.Error(t, err)
	_, err = Start(Config{Path: "no-such-engine-in-path-xyz"})
	require.Error(t, err)
}

func TestRelativePathWithDir(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	wd, err := os.Getwd()
	require.NoError(t, err)
	rel, err := filepath.Rel(wd, exe)
	if err != nil || !strings.ContainsAny(rel, "/"+string(filepath.Separator)) {
		t.Skip("the test binary has no relative path with a slash from here")
	}
	p, err := Start(Config{Path: rel, Args: []string{"echo"}, Dir: os.TempDir(), Env: append(os.Environ(), fakeEnv+"=1")})
	require.NoError(t, err, "a relative path is taken from our directory, not Dir")
	defer p.Kill()
	require.NoError(t, p.Send("hi"))
	got, _ := next(t, p)
	assert.Equal(t, "hi", got)
}

// TestQuickExitNamesDroppedVariables: an engine that fails at once is told
// which of its own variables the environment filter dropped (names only),
// in ExitErr and in the log; one stopped by us is not.
func TestQuickExitNamesDroppedVariables(t *testing.T) {
	t.Setenv("PROC_MODEL", "/models/secret-path")
	t.Setenv("PROC_API_TOKEN", "fsbm_SECRET")
	exe, err := os.Executable()
	require.NoError(t, err)
	env := append(EngineEnv(os.Environ()), fakeEnv+"=1", "GORACE=atexit_sleep_ms=0")
	var log enginetest.Log
	p, err := Start(Config{Path: exe, Args: []string{"exit3"}, Env: env, Logger: log.Logger()})
	require.NoError(t, err)
	t.Cleanup(p.Kill)
	<-p.Done()
	e := p.ExitErr()
	require.Error(t, e)
	assert.Contains(t, e.Error(), "exit status 3")
	// The machine's own variables may be named too: PROC_MODEL among them.
	assert.Regexp(t, `\(the engine environment filter dropped [^;]*\bPROC_MODEL\b`, e.Error())
	assert.Regexp(t, ExtraEnvVar+`=\S*\bPROC_MODEL\b\S* passes them\)`, e.Error())
	var ee *exec.ExitError
	assert.ErrorAs(t, e, &ee, "still the exit error underneath")
	assert.True(t, log.Contains("engine exited at once"), log.String())
	for _, s := range []string{e.Error(), log.String()} {
		assert.NotContains(t, s, "/models/secret-path")
		assert.NotContains(t, s, "PROC_API_TOKEN")
		assert.NotContains(t, s, "SECRET")
	}

	// Stopped by us: no note.
	q := start(t, nil, Config{}, "echo")
	q.Kill()
	assert.NotContains(t, fmt.Sprint(q.ExitErr()), ExtraEnvVar)
}

// TestStartFailureNamesDroppedVariables: a program that cannot start is
// told the same.
func TestStartFailureNamesDroppedVariables(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no execute permission bit on Windows")
	}
	t.Setenv("PROCENGINE_HOME", "/opt/procengine")
	path := filepath.Join(t.TempDir(), "procengine")
	require.NoError(t, os.WriteFile(path, []byte("not a program"), 0o644))
	_, err := Start(Config{Path: path})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "permission denied")
	assert.Regexp(t, `dropped [^;]*\bPROCENGINE_HOME\b`, err.Error())
	assert.NotContains(t, err.Error(), "/opt/procengine")
}
