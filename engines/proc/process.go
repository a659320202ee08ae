package proc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrExited is returned when writing to a process that has ended.
var ErrExited = errors.New("engine process has exited")

// Defaults of [Config].
const (
	DefaultQuitGrace    = 300 * time.Millisecond
	DefaultTermGrace    = 300 * time.Millisecond
	DefaultWriteTimeout = 2 * time.Second
	DefaultMaxLineBytes = 64 << 10
	// killWait bounds the wait for a killed process to be reaped.
	killWait = 5 * time.Second
	// quickExit is how soon after its start an engine that exits has
	// exited at once: its exit names what the environment filter dropped.
	quickExit = 5 * time.Second
	// lineBuffer is the number of stdout lines held for the reader.
	lineBuffer = 64
	// maxLogLine bounds a stderr line in the log.
	maxLogLine = 500
)

// Config describes a process to start.
type Config struct {
	// Path is the program: a path, or a name looked up in PATH.
	Path string
	// Args are the arguments after the program name.
	Args []string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Env is the environment; nil means EngineEnv of ours (PATH, HOME,
	// locale and the like; never the bot token or other secrets).
	Env []string
	// Name labels the process in logs (no secrets, no long paths needed).
	Name string
	// Logger receives the stderr lines and lifecycle messages; nil
	// discards them.
	Logger *slog.Logger
	// StderrLevel is the level of the stderr lines in the log (zero: Info).
	StderrLevel slog.Level
	// QuitLine, when not empty, is written to stdin first by Stop.
	QuitLine string
	// QuitGrace is how long Stop waits after QuitLine and the end of
	// stdin before SIGTERM, and TermGrace how long after SIGTERM before
	// the kill (zero: defaults). Windows has no SIGTERM: there the engine
	// gets both graces after the end of its stdin.
	QuitGrace, TermGrace time.Duration
	// WriteTimeout bounds one write to stdin (zero: default).
	WriteTimeout time.Duration
	// MaxLineBytes bounds one stdout line; longer lines are cut to it
	// (zero: default).
	MaxLineBytes int
}

// Process is a running (or ended) engine process. Its methods are safe for
// concurrent use.
type Process struct {
	cfg    Config
	log    *slog.Logger
	cmd    *exec.Cmd
	tree   *tree // the engine's process tree, as the OS lets us hold it
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	budget *stderrBudget // of the stderr lines logged

	lines   chan string
	done    chan struct{}
	closing chan struct{}
	readers sync.WaitGroup

	writeMu  sync.Mutex
	stopOnce sync.Once
	stopping atomic.Bool // Stop or Kill was called
	waitErr  error       // set before done is closed
	// started is when the process started.
	started time.Time
	// envNote names the variables of ours that look like the engine's own
	// and that its environment lacks (see envNote, ownNote), for an exit
	// at once; "" when none.
	envNote string
	// atOnce: the process exited within quickExit of its start, unasked,
	// lacking variables of ours (set before done is closed).
	atOnce bool
}

// Start starts the program described by cfg in a process tree of its
// own: a new process group on Unix, a Job Object on Windows (see the
// package documentation).
func Start(cfg Config) (*Process, error) {
	if cfg.Path == "" {
		return nil, fmt.Errorf("start engine: %w", ErrEmptyCommand)
	}
	if cfg.QuitGrace <= 0 {
		cfg.QuitGrace = DefaultQuitGrace
	}
	if cfg.TermGrace <= 0 {
		cfg.TermGrace = DefaultTermGrace
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.MaxLineBytes <= 0 {
		cfg.MaxLineBytes = DefaultMaxLineBytes
	}
	if cfg.Name == "" {
		cfg.Name = cfg.Path
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	budget := budgetOf(log)
	if budget == nil {
		budget = newStderrBudget(log, nil)
	}
	log = log.With("engine", cfg.Name)
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	pipe := func(out bool) (ours, theirs *os.File, err error) {
		ours, theirs, err = newPipe(out)
		if err == nil {
			files = append(files, ours, theirs)
		}
		return ours, theirs, err
	}
	inW, inR, err := pipe(false)
	if err != nil {
		return nil, fmt.Errorf("start engine %s: %w", cfg.Name, err)
	}
	outR, outW, err := pipe(true)
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("start engine %s: %w", cfg.Name, err)
	}
	errR, errW, err := pipe(true)
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("start engine %s: %w", cfg.Name, err)
	}
	path := cfg.Path
	if strings.ContainsAny(path, "/"+string(filepath.Separator)) && !filepath.IsAbs(path) {
		// A relative path would be taken relative to Dir by the child.
		abs, err := filepath.Abs(path)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("start engine %s: %w", cfg.Name, err)
		}
		path = abs
	}
	cmd := exec.Command(path, cfg.Args...)
	cmd.Dir = cfg.Dir
	cmd.Env = cfg.Env
	if cmd.Env == nil {
		cmd.Env = defaultEnv()
	}
	note := envNote(os.Environ(), cmd.Env, append([]string{cfg.Path}, cfg.Args...))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	t, err := newTree(log)
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("start engine %s: %w", cfg.Name, err)
	}
	cmd.SysProcAttr = t.sysProcAttr()
	if err := cmd.Start(); err != nil {
		t.release()
		closeAll()
		// A program that could not be started was not run: its own
		// variables are worth naming (a path it needs), the count of the
		// others is not.
		if own := ownNote(note); own != "" {
			return nil, fmt.Errorf("start engine %s: %w (%s)", cfg.Name, err, own)
		}
		return nil, fmt.Errorf("start engine %s: %w", cfg.Name, err)
	}
	if err := t.started(cmd.Process.Pid); err != nil {
		// Not contained, so not run: the process has not run a single
		// instruction where the OS starts it suspended (Windows).
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.release()
		closeAll()
		return nil, fmt.Errorf("start engine %s: %w", cfg.Name, err)
	}
	// The child holds its ends now.
	_ = inR.Close()
	_ = outW.Close()
	_ = errW.Close()
	p := &Process{
		cfg:     cfg,
		log:     log.With("pid", cmd.Process.Pid),
		cmd:     cmd,
		tree:    t,
		stdin:   inW,
		stdout:  outR,
		stderr:  errR,
		budget:  budget,
		lines:   make(chan string, lineBuffer),
		done:    make(chan struct{}),
		closing: make(chan struct{}),
		started: time.Now(),
		envNote: ownNote(note), // the count of the others alone is noise
	}
	p.readers.Add(2)
	go p.readStdout()
	go p.readStderr()
	go p.wait()
	p.log.Debug("engine started", "args", len(cfg.Args))
	return p, nil
}

// Pid returns the process id (on Unix also its process group id).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Lines delivers the lines the process writes to stdout, without the line
// end. It is closed when stdout ends (the process and every process that
// shares its stdout have exited, or Stop was called).
func (p *Process) Lines() <-chan string { return p.lines }

// Done is closed when the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ExitErr returns the result of waiting for the process (nil for exit
// status 0); it is meaningful only after Done is closed. When the process
// failed at once (within quickExit of its start, unasked) and its
// environment lacks variables of ours, the error names them (envNote).
func (p *Process) ExitErr() error {
	select {
	case <-p.done:
		if p.waitErr != nil && p.atOnce {
			return fmt.Errorf("%w (%s)", p.waitErr, p.envNote)
		}
		return p.waitErr
	default:
		return nil
	}
}

// Send writes one line (a newline is added) to the process's stdin. A
// write that cannot complete within the write timeout fails.
func (p *Process) Send(line string) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if p.Exited() {
		return fmt.Errorf("send to engine %s: %w", p.cfg.Name, ErrExited)
	}
	if err := p.stdin.SetWriteDeadline(time.Now().Add(p.cfg.WriteTimeout)); err != nil && !errors.Is(err, os.ErrNoDeadline) {
		return fmt.Errorf("send to engine %s: %w", p.cfg.Name, err)
	}
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		if p.Exited() || isBrokenPipe(err) {
			return fmt.Errorf("send to engine %s: %w", p.cfg.Name, ErrExited)
		}
		return fmt.Errorf("send to engine %s: %w", p.cfg.Name, err)
	}
	return nil
}

// Stop ends the process and its descendants: QuitLine (if configured) and
// the end of its stdin, then SIGTERM to its process group (not on
// Windows), each followed by its grace period, then the kill of its whole
// tree; it returns when the process is reaped and the reader goroutines
// have ended. It is idempotent.
func (p *Process) Stop() { p.stop(true) }

// Kill kills the process and its descendants at once and cleans up like
// Stop.
func (p *Process) Kill() { p.stop(false) }

func (p *Process) stop(graceful bool) {
	p.stopping.Store(true)
	p.stopOnce.Do(func() {
		if graceful && !p.Exited() {
			// The tree as it is now: a child that the engine leaves
			// behind when it exits below is still known as the
			// engine's (Linux).
			p.tree.note()
			if p.cfg.QuitLine != "" {
				_ = p.Send(p.cfg.QuitLine)
			}
			// End of input is the other polite way to ask an engine to go.
			p.writeMu.Lock()
			_ = p.stdin.Close()
			p.writeMu.Unlock()
			p.waitDone(p.cfg.QuitGrace)
			if !p.Exited() {
				p.tree.terminate()
				p.waitDone(p.cfg.TermGrace)
			}
		}
		// Kill the tree even when the engine is gone: it reaches any
		// child the engine left behind.
		p.tree.kill()
		if !p.waitDone(killWait) {
			p.log.Error("engine did not exit when killed")
		}
		p.tree.release()
		close(p.closing)
		p.writeMu.Lock()
		_ = p.stdin.Close()
		p.writeMu.Unlock()
		// Unblock readers whose pipe is still held by some other process.
		_ = p.stdout.Close()
		_ = p.stderr.Close()
		p.readers.Wait()
		p.log.Debug("engine stopped", "status", exitText(p.ExitErr()))
	})
}

// waitDone waits up to d for the process to exit and reports whether it did.
func (p *Process) waitDone(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

func (p *Process) wait() {
	p.waitErr = p.cmd.Wait()
	lived := time.Since(p.started)
	p.atOnce = p.envNote != "" && lived < quickExit && !p.stopping.Load()
	p.log.Debug("engine exited", "status", exitText(p.waitErr))
	if p.atOnce {
		p.log.Warn("engine exited at once", "status", exitText(p.waitErr), "after", lived.Round(time.Millisecond), "env", p.envNote)
	}
	close(p.done)
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// readStdout splits stdout into lines of at most MaxLineBytes.
func (p *Process) readStdout() {
	defer p.readers.Done()
	defer close(p.lines)
	r := bufio.NewReaderSize(p.stdout, 4096)
	for {
		line, err := readLine(r, p.cfg.MaxLineBytes)
		if line != "" || err == nil {
			select {
			case p.lines <- line:
			case <-p.closing:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line without its "\n" or "\r\n", keeping at most max
// bytes of it. At the end of input it returns what it has with the error.
func readLine(r *bufio.Reader, max int) (string, error) {
	var b []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if room := max - len(b); room > 0 {
			if len(chunk) > room {
				b = append(b, chunk[:room]...)
			} else {
				b = append(b, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		s := strings.TrimRight(string(b), "\r\n")
		return s, err
	}
}

// readStderr logs the stderr lines, at most as many as the budget lets
// through; it reads every line, so that the engine never blocks on a full
// pipe.
func (p *Process) readStderr() {
	defer p.readers.Done()
	r := bufio.NewReaderSize(p.stderr, 4096)
	ctx := context.Background()
	for {
		line, err := readLine(r, maxLogLine)
		// A line the log would not show takes nothing of the budget.
		if strings.TrimSpace(line) != "" && p.log.Enabled(ctx, p.cfg.StderrLevel) && p.budget.allow(p.cfg.Name) {
			p.log.Log(ctx, p.cfg.StderrLevel, "engine stderr", "line", line)
		}
		if err != nil {
			return
		}
	}
}
