package egaroucid

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/internal/adapt"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/proc"
	"flipbot.dev/flipbot/engines/timeplan"
)

// DefaultMargin is the time kept under the budget for Egaroucid to print
// its answer after its own think time.
const DefaultMargin = 300 * time.Millisecond

// readyProbe is sent to a new process: Egaroucid answers it with its
// version ("Egaroucid for Console 7.8.0 …") once it has loaded its
// evaluation and reads commands, which tells the adapter that the start-up
// is over.
const readyProbe = "version"

// Options configure an [Engine].
type Options struct {
	// Path is the Egaroucid for Console binary (--egaroucid).
	Path string
	// Threads, when positive, is passed as -t.
	Threads int
	// Hash, when positive, is passed as -hash (the table has 2^Hash
	// entries of 24 bytes; Egaroucid's default is 25). See engines/sizing
	// (at most sizing.EgaroucidMaxTable there).
	Hash int
	// ExtraArgs are added to the command line (after -noboard and the
	// options above; a later option wins in Egaroucid).
	ExtraArgs []string
	// Margin is kept under the budget (zero: DefaultMargin).
	Margin time.Duration
	// Startup is the start-up allowance: how long a new process may take
	// to load before the adapter gives up on its first answer (zero:
	// adapt.DefaultStartup). The process is started ahead of the first
	// move by Start when the bot accepts a match.
	Startup time.Duration
	// MemoryShare, when positive, is the memory this process should stay
	// in (engines/sizing). A process whose peak resident size at its first
	// answer exceeds it is reported in the log, with the fix (a stock
	// build takes 1.33 GiB whatever -hash says).
	MemoryShare uint64
	// RefuseOverShare, with MemoryShare, refuses a build that does not fit
	// instead of only reporting it: a process whose resident size passes
	// OverShareLimit(MemoryShare) while it starts (watched every 25 ms,
	// Linux only) or at its first answer is killed, and from then on Start
	// and Move return an error matching ErrOverShare at once, without
	// starting Egaroucid again (it would take as much). The appliance
	// refuses (a stock build would exhaust a Pi's memory); flipbot on a PC
	// only reports it (the owner chose that engine, and a PC has room or
	// swap).
	RefuseOverShare bool
	// Name is the engine's name; empty means "Egaroucid".
	Name string
	// Logger receives Egaroucid's stderr and the adapter's messages.
	Logger *slog.Logger
	// StderrLevel is the log level of Egaroucid's stderr lines (it writes
	// its time limit there at every move; Debug keeps that quiet).
	StderrLevel slog.Level
}

// Engine is an Egaroucid for Console process for one leg. It is safe for
// concurrent use; requests are answered one at a time.
type Engine struct {
	opts Options
	bin  string
	log  *slog.Logger
	slot *proc.Slot

	mu      sync.Mutex
	refused error // set once a process took more than its share (RefuseOverShare)
	// ready is the process that has answered the ready probe, started
	// when the slot's process was started; used holding the slot's turn.
	ready   *proc.Process
	started time.Time
	// watchStop ends the memory watch of the process being started
	// (RefuseOverShare): closed when it has answered the ready probe.
	watchStop chan struct{}
}

// ErrClosed is returned by Move after Close.
var ErrClosed = proc.ErrClosed

// ErrMode is returned for a position that is not std.
var ErrMode = errors.New("egaroucid plays std only")

// ErrOverShare is matched by the error of an Engine with RefuseOverShare
// whose process took more memory than OverShareLimit of its share.
var ErrOverShare = errors.New("egaroucid takes more memory than its share")

// OverShareLimit is the resident size past which a process with the given
// share is refused: the share and a quarter more. The estimates of
// engines/sizing match the low-memory build within a few MiB, and the
// bound that the shares divide leaves 40 % of the memory free, so a
// quarter over one share is no danger; the stock build takes five times a
// 1 GB Pi's share.
func OverShareLimit(share uint64) uint64 { return share + share/4 }

// memoryPoll is how often a starting process's memory is read when
// RefuseOverShare is set.
const memoryPoll = 25 * time.Millisecond

var (
	errEOF = errors.New("egaroucid exited")
	// errNotReady is the error of a move that found the process still
	// starting (it is kept): it wraps engines.ErrNotReady.
	errNotReady = fmt.Errorf("egaroucid: %w", engines.ErrNotReady)
)

// New checks the binary and returns an engine for one leg; Egaroucid starts
// at the first move.
func New(opts Options) (*Engine, error) {
	if opts.Path == "" {
		return nil, errors.New("egaroucid: no binary given")
	}
	bin, err := exec.LookPath(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("egaroucid binary: %w", err)
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return nil, fmt.Errorf("egaroucid binary: %w", err)
	}
	if opts.Margin <= 0 {
		opts.Margin = DefaultMargin
	}
	if opts.Startup <= 0 {
		opts.Startup = adapt.DefaultStartup
	}
	if opts.Hash < 0 || opts.Hash > 30 {
		return nil, fmt.Errorf("egaroucid: hash level %d outside 0..30", opts.Hash)
	}
	if opts.Name == "" {
		opts.Name = "Egaroucid"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("adapter", "egaroucid")
	if fi, err := os.Stat(filepath.Join(filepath.Dir(bin), "resources")); err != nil || !fi.IsDir() {
		log.Warn("no resources/ folder beside the Egaroucid binary; it may fail to start", "dir", filepath.Dir(bin))
	}
	e := &Engine{opts: opts, bin: bin, log: log}
	e.slot = proc.NewSlot(e.startProcess)
	return e, nil
}

// Name returns the engine's name.
func (e *Engine) Name() string { return e.opts.Name }

// Supports reports true for std only.
func (e *Engine) Supports(mode othello.Mode) bool { return mode == othello.Std }

// Stats returns how many times the process was started and how many times
// it ended or was killed without being asked to.
func (e *Engine) Stats() (starts, crashes int) { return e.slot.Stats() }

// Start starts the process now, if it is not running, instead of at the
// next move, so that its start-up time is not taken from a move's budget.
// It does not wait for the engine to be ready.
func (e *Engine) Start() error {
	if err := e.Refused(); err != nil {
		return err
	}
	return e.slot.Start()
}

// warmStep is how long Warm waits for the ready probe's answer at a time
// before it lets a move take its turn.
const warmStep = 250 * time.Millisecond

// Warm starts the process, if it is not running, and waits within ctx
// until it has answered its ready probe, its memory checked as at a first
// move: the appliance checks a new build this way, with one process, before
// it starts more. It returns nil once the engine is ready, the refusal
// (ErrOverShare), the process's end, or ctx's error. While it waits it
// lets moves take their turn (a move then waits for the same start-up).
func (e *Engine) Warm(ctx context.Context) error {
	for {
		if err := e.Refused(); err != nil {
			return err
		}
		if !e.slot.Acquire(ctx) {
			return ctx.Err()
		}
		done, err := e.warmStep(ctx)
		e.slot.Release()
		if done {
			return err
		}
	}
}

// warmStep is one wait of Warm, holding the turn: done is false while the
// process is still loading.
func (e *Engine) warmStep(ctx context.Context) (done bool, err error) {
	p, _, err := e.slot.Process()
	if err != nil {
		return true, fmt.Errorf("egaroucid: %w", err)
	}
	if p == e.ready {
		return true, nil
	}
	err = e.awaitReady(ctx, p, time.Now().Add(warmStep))
	if err == nil {
		err = e.checkMemory(p)
	}
	if rerr := e.Refused(); rerr != nil {
		e.slot.Retire(p, false)
		return true, rerr
	}
	switch {
	case err == nil:
		e.markReady(p)
		return true, nil
	case errors.Is(err, errEOF):
		e.slot.Retire(p, true)
		return true, fmt.Errorf("egaroucid start: %w", err)
	case ctx.Err() != nil:
		return true, ctx.Err()
	}
	return false, nil
}

// Refused returns the error that made the engine refuse Egaroucid (one
// matching ErrOverShare), or nil.
func (e *Engine) Refused() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.refused
}

// Close stops the process (quit, SIGTERM, SIGKILL to its group).
func (e *Engine) Close() error { return e.slot.Close() }

// SettimeSeconds returns the clock, in whole seconds (at least 1), given to
// Egaroucid with settime for req: the mover's clock less timeplan.Reserve,
// lowered until Egaroucid's own allotment of it for this move (as
// [Allotment] models it) fits in what this move can afford: the think time
// that the one clock plan gives (adapt.ThinkTime), never more than the budget less margin, and
// never so much that the moves after it could not have their own least
// allotment (that of settime 1, up to 0.9 s for an endgame solve; settime
// takes whole seconds). Egaroucid can put most of its clock into one move
// (an endgame solve, a close choice); told its real clock it ran short
// clocks down to the bot's fallback floor.
func SettimeSeconds(req engines.Request, margin time.Duration) int {
	s, _ := plan(req, margin)
	return s
}

// plan returns SettimeSeconds and the modelled allotment of that clock
// for this move: the time the adapter waits for the answer, with
// adapt.AnswerAllowance.
func plan(req engines.Request, margin time.Duration) (int, time.Duration) {
	budget := adapt.Budget(req)
	remaining := req.Remaining
	if remaining <= 0 {
		remaining = budget
	}
	empties := adapt.Empties(req)
	least := Allotment(time.Second, empties)
	var later time.Duration // the least the mover's later moves take
	for e := empties - 2; e > 0; e -= 2 {
		later += Allotment(time.Second, e)
	}
	// The reserve holds every own move's overhead and the spec's margin.
	reserve := timeplan.Reserve(timeplan.Count(req.Position), 0)
	affordable := max(least, remaining-reserve-later)
	ceiling := min(budget-margin, adapt.ThinkTime(req, margin), affordable)
	for s := int((remaining - reserve) / time.Second); s > 1; s-- {
		if a := Allotment(time.Duration(s)*time.Second, empties); a <= ceiling {
			return s, a
		}
	}
	return 1, least
}

// Move asks Egaroucid for a move in req.Position (std only).
func (e *Engine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	start := time.Now()
	pos := req.Position
	if pos.Mode != othello.Std {
		return engines.Result{}, fmt.Errorf("egaroucid move: %w (got %s)", ErrMode, pos.Mode)
	}
	if m, ok, err := adapt.Forced(pos); err != nil {
		return engines.Result{}, fmt.Errorf("egaroucid move: %w", err)
	} else if ok {
		return engines.Result{Move: m, Elapsed: time.Since(start)}, nil
	}
	board, err := BoardString(pos)
	if err != nil {
		return engines.Result{}, err
	}
	side := "X"
	if pos.Turn == othello.White {
		side = "O"
	}
	wctx, cancel, err := adapt.Start(ctx, start, req)
	if err != nil {
		return engines.Result{}, fmt.Errorf("egaroucid move: %w", err)
	}
	defer cancel()
	if err := e.Refused(); err != nil {
		return engines.Result{}, err
	}
	if !e.slot.Acquire(wctx) {
		return engines.Result{}, fmt.Errorf("egaroucid move: waiting for the engine: %w", adapt.WaitErr(ctx, wctx))
	}
	defer e.slot.Release()
	lastErr := errEOF
	var lastEnd error // how the previous attempt's process ended
	for attempt := 0; attempt < 2 && wctx.Err() == nil; attempt++ {
		lastEnd = lastErr
		p, _, err := e.slot.Process()
		if err != nil {
			return engines.Result{}, fmt.Errorf("egaroucid move: %w", err)
		}
		if p != e.ready {
			// Still starting: wait for it until shortly before the
			// budget ends (adapt.ReadyBy), in time for a fallback.
			err := e.awaitReady(wctx, p, adapt.ReadyBy(start, req))
			if err == nil {
				err = e.checkMemory(p)
			}
			if rerr := e.Refused(); rerr != nil {
				e.slot.Retire(p, false)
				return engines.Result{}, rerr
			}
			if err != nil {
				lastErr = err
				if errors.Is(err, errEOF) || time.Since(e.started) > adapt.MaxStartup {
					// Dead, or loading for so long that it must be hung: replaced.
					e.slot.Retire(p, true)
					continue
				}
				if ctx.Err() != nil {
					return engines.Result{}, fmt.Errorf("egaroucid move: %w (%v)", adapt.WaitErr(ctx, wctx), err)
				}
				if attempt > 0 && errors.Is(lastEnd, errEOF) {
					// The replacement of a process that died in this
					// move: the death is the cause, not the new start.
					return engines.Result{}, fmt.Errorf("egaroucid move: %w (its replacement: %v)", lastEnd, err)
				}
				// Still loading: it goes on in the background and answers
				// a later move; this one is played by the caller's
				// fallback (err wraps engines.ErrNotReady).
				return engines.Result{}, fmt.Errorf("egaroucid move: %w", err)
			}
			e.markReady(p, "move_waited", time.Since(start).Round(time.Millisecond))
		}
		e.drain(p)
		// settime after setboard: setboard resets the clock once settime
		// has been used. The plan is made now, on what is left of the
		// clock and the budget after any wait for the start-up: that
		// wait is not taken from the search's answer time.
		settime, planned := plan(adapt.After(req, time.Since(start)), e.opts.Margin)
		cmds := []string{"setboard " + board, "settime " + side + " " + strconv.Itoa(settime), "go"}
		sent := time.Now()
		if err := sendAll(p, cmds); err != nil {
			lastErr = err
			e.slot.Retire(p, true)
			continue
		}
		actx, acancel := context.WithDeadline(wctx, adapt.AnswerBy(start, sent, req, planned))
		a, err := e.await(actx, p)
		acancel()
		switch {
		case err == nil:
			if err := adapt.Check(pos, a.Move); err != nil {
				return engines.Result{}, fmt.Errorf("egaroucid move: %w", err)
			}
			return e.result(pos, a, time.Since(sent)), nil
		case errors.Is(err, errEOF):
			lastErr = err
			e.slot.Retire(p, true)
		default:
			// Past its planned time: kill it; the next move starts a new one.
			e.log.Warn("egaroucid gave no answer in time; killing it", "settime_s", settime,
				"planned", planned, "allowance", adapt.AnswerAllowance, "budget", adapt.Budget(req))
			e.slot.Retire(p, true)
			if werr := adapt.WaitErr(ctx, wctx); ctx.Err() != nil || wctx.Err() != nil {
				return engines.Result{}, fmt.Errorf("egaroucid move: %w", werr)
			}
			return engines.Result{}, fmt.Errorf("egaroucid move: %w: none within the planned %v + %v (settime %d s)",
				adapt.ErrTimeout, planned.Round(time.Millisecond), adapt.AnswerAllowance, settime)
		}
	}
	if wctx.Err() != nil {
		return engines.Result{}, fmt.Errorf("egaroucid move: %w (%v)", adapt.WaitErr(ctx, wctx), lastErr)
	}
	return engines.Result{}, fmt.Errorf("egaroucid move: %w", lastErr)
}

// result converts an answer into the engine's result.
func (e *Engine) result(pos othello.Position, a Answer, elapsed time.Duration) engines.Result {
	empties := pos.Mode.Squares() - pos.Black.Count() - pos.White.Count()
	return engines.Result{
		Move:    a.Move,
		Score:   a.Value,
		Depth:   a.Depth,
		Exact:   a.Probability == 100 && a.Depth >= empties,
		Nodes:   a.Nodes,
		Elapsed: elapsed,
	}
}

// awaitReady waits for the answer to the ready probe within ctx, until by
// and within the start-up allowance. Its error wraps errEOF when the
// process has ended, and errNotReady (engines.ErrNotReady) when it is
// still loading.
func (e *Engine) awaitReady(ctx context.Context, p *proc.Process, by time.Time) error {
	allowance := time.Now().Add(e.opts.Startup)
	limit := "the start-up allowance of " + e.opts.Startup.String()
	if by.Before(allowance) {
		limit = "this move's wait for it"
		allowance = by
	}
	ctx, cancel := context.WithDeadline(ctx, allowance)
	defer cancel()
	ready := func(l string, ok bool) (bool, error) {
		if !ok {
			return true, e.eof(ctx, p)
		}
		if s := StripPrompt(l); strings.Contains(strings.ToLower(s), "egaroucid") {
			if e.watchStop != nil {
				close(e.watchStop)
				e.watchStop = nil
			}
			return true, nil
		} else if s != "" {
			e.log.Debug("egaroucid line skipped", "line", s)
		}
		return false, nil
	}
	for {
		// What has arrived already counts even when there is no time
		// left to wait (a process that became ready between moves).
		select {
		case l, ok := <-p.Lines():
			if done, err := ready(l, ok); done {
				return err
			}
			continue
		default:
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: no answer to %q within %s (started %v ago)", errNotReady, readyProbe, limit,
				time.Since(e.started).Round(time.Millisecond))
		case l, ok := <-p.Lines():
			if done, err := ready(l, ok); done {
				return err
			}
		}
	}
}

// markReady notes that p has answered its ready probe, and logs how long
// its start-up took and its peak resident size (with args).
func (e *Engine) markReady(p *proc.Process, args ...any) {
	e.ready = p
	args = append(args, "startup", time.Since(e.started).Round(time.Millisecond))
	if m, err := p.Memory(); err == nil {
		args = append(args, "peak_mib", m.Peak>>20)
	}
	e.log.Info("egaroucid ready", args...)
}

// overShareFix is what the log says to do about a build that does not fit.
const overShareFix = "a stock build? Its table is static and written at start (1.33 GiB whatever -hash says); " +
	"build the low-memory one: make egaroucid EGAROUCID_SRC=… for the Pi image, or the two sed lines of " +
	"engines/README.md (External engines) for a PC"

// checkMemory checks a process's peak resident size at its first answer:
// over its share it is reported; over OverShareLimit with RefuseOverShare,
// Egaroucid is refused (see refuse).
func (e *Engine) checkMemory(p *proc.Process) error {
	if e.opts.MemoryShare == 0 {
		return nil
	}
	m, err := p.Memory()
	if err != nil {
		return nil
	}
	if e.opts.RefuseOverShare && m.Peak > OverShareLimit(e.opts.MemoryShare) {
		return e.refuse(m, "at its first answer")
	}
	if m.Peak > e.opts.MemoryShare {
		e.log.Warn("EGAROUCID TAKES MORE MEMORY THAN ITS SHARE: expect swapping or the OOM killer; "+overShareFix,
			"peak_mib", m.Peak>>20, "rss_mib", m.RSS>>20, "share_mib", e.opts.MemoryShare>>20,
			"hash_level", e.opts.Hash, "binary", e.bin)
	}
	return nil
}

// refuse records that the process took m, more than its share allows,
// and returns the error that Move and Start return from now on (their
// caller reports it: the appliance logs it once for all its Egaroucid
// processes). The caller kills the process.
func (e *Engine) refuse(m proc.Memory, when string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.refused != nil {
		return e.refused
	}
	mib := func(b uint64) float64 { return float64(b) / (1 << 20) }
	e.refused = fmt.Errorf("%w: %.1f MiB resident %s, over the %.1f MiB limit of its %.1f MiB share (%s): %s",
		ErrOverShare, mib(m.Peak), when, mib(OverShareLimit(e.opts.MemoryShare)), mib(e.opts.MemoryShare), e.bin, overShareFix)
	e.log.Debug("egaroucid refused", "err", e.refused)
	return e.refused
}

// watchMemory reads a starting process's memory every memoryPoll until it
// has answered its ready probe (ready closed), exited, or loaded for
// adapt.MaxStartup (a process started ahead and not yet asked anything;
// its first answer is checked anyway), and kills it (refusing Egaroucid)
// as soon as it passes OverShareLimit: a stock build is stopped while it
// writes its tables, before it takes a Pi's memory.
func (e *Engine) watchMemory(p *proc.Process, ready <-chan struct{}) {
	limit := OverShareLimit(e.opts.MemoryShare)
	t := time.NewTicker(memoryPoll)
	defer t.Stop()
	end := time.NewTimer(adapt.MaxStartup)
	defer end.Stop()
	for {
		select {
		case <-ready:
			return
		case <-p.Done():
			return
		case <-end.C:
			return
		case <-t.C:
		}
		m, err := p.Memory()
		if err != nil {
			continue // gone: Done ends the watch
		}
		if m.RSS > limit || m.Peak > limit {
			e.refuse(m, "while starting")
			e.slot.Retire(p, false)
			return
		}
	}
}

func sendAll(p *proc.Process, cmds []string) error {
	for _, c := range cmds {
		if err := p.Send(c); err != nil {
			return fmt.Errorf("%w: %v", errEOF, err)
		}
	}
	return nil
}

// startProcess starts Egaroucid for the slot, in its own folder so that
// it finds resources/.
func (e *Engine) startProcess() (*proc.Process, error) {
	if err := e.Refused(); err != nil {
		return nil, err
	}
	args := []string{"-noboard"}
	if e.opts.Threads > 0 {
		args = append(args, "-t", strconv.Itoa(e.opts.Threads))
	}
	if e.opts.Hash > 0 {
		args = append(args, "-hash", strconv.Itoa(e.opts.Hash))
	}
	args = append(args, e.opts.ExtraArgs...)
	p, err := proc.Start(proc.Config{
		Path:        e.bin,
		Args:        args,
		Dir:         filepath.Dir(e.bin),
		Env:         Env(os.Environ()),
		Name:        e.opts.Name,
		Logger:      e.log,
		StderrLevel: e.opts.StderrLevel,
		QuitLine:    "quit",
	})
	if err != nil {
		return nil, err
	}
	e.started = time.Now()
	e.watchStop = nil
	if e.opts.RefuseOverShare && e.opts.MemoryShare > 0 && runtime.GOOS == "linux" {
		e.watchStop = make(chan struct{})
		go e.watchMemory(p, e.watchStop)
	}
	if err := p.Send(readyProbe); err != nil {
		return p, fmt.Errorf("%w: %v", errEOF, err) // the slot kills it and counts a crash
	}
	return p, nil
}

// HugePages is the glibc tunable given to Egaroucid unless the owner set
// GLIBC_TUNABLES for engines (proc.ExtraEnvVar): its allocations (its
// table and evaluation) get transparent huge pages where the kernel offers
// them on request (Linux's "madvise" mode), which halved the CPU time of
// the low-memory build's start-up on the build VM (2.0–2.2 s → 1.1–1.3 s
// at -hash 23, engines/README.md) without changing its speed. Other
// systems and older glibc ignore it.
const HugePages = "GLIBC_TUNABLES=glibc.malloc.hugetlb=1"

// Env returns the environment of an Egaroucid process built from parent
// (as os.Environ returns it): proc.EngineEnv's, with HugePages unless that
// already holds GLIBC_TUNABLES.
func Env(parent []string) []string {
	env := proc.EngineEnv(parent)
	for _, kv := range env {
		if strings.HasPrefix(kv, "GLIBC_TUNABLES=") {
			return env
		}
	}
	return append(env, HugePages)
}

// drain discards lines that arrived between moves.
func (e *Engine) drain(p *proc.Process) {
	for {
		select {
		case l, ok := <-p.Lines():
			if !ok {
				return
			}
			e.log.Debug("egaroucid line between moves skipped", "line", l)
		default:
			return
		}
	}
}

// await reads lines until an answer, the end of stdout or the end of ctx.
func (e *Engine) await(ctx context.Context, p *proc.Process) (Answer, error) {
	for {
		select {
		case <-ctx.Done():
			return Answer{}, ctx.Err()
		case l, ok := <-p.Lines():
			if !ok {
				return Answer{}, e.eof(ctx, p)
			}
			if a, ok := ParseAnswer(l); ok {
				return a, nil
			}
			if s := StripPrompt(l); s != "" {
				e.log.Debug("egaroucid line skipped", "line", s)
			}
		}
	}
}

// eof waits (within ctx) for the process to be reaped after its stdout
// ended and returns the error to report.
func (e *Engine) eof(ctx context.Context, p *proc.Process) error {
	select {
	case <-p.Done():
		return fmt.Errorf("%w (%v)", errEOF, p.ExitErr())
	case <-ctx.Done():
		return fmt.Errorf("%w (closed its output)", errEOF)
	}
}
