// Package external chooses and builds the external-engine adapter that the
// connector's flags ask for: --engine (JSON line), --nboard and
// --nboard-depth (NBoard), --edax and --edax-eval (Edax), --egaroucid
// (Egaroucid for Console).
//
// [Config.Provider] gives the bot its engines: a JSON-line engine is one
// process per match, shared by both legs (engines.PerMatch); the others
// are one process per leg (engines.PerLeg), kept warm between matches in
// an engines.Pool. Each instance starts its process at Start (the session
// calls it when the match is opened) or at its first move.
//
// Edax and Egaroucid are sized to the machine (engines/sizing): their
// threads are each leg's share of the cores and their tables the largest
// that keep every leg's process of every running match (Config.Legs)
// inside the memory bound; --threads and --hash-mb, when given, win.
// NBoard engines are stopped with a ping at the think time that the clock
// allows (the same allotment as Edax's).
//
// An Egaroucid whose measured peak resident size at its first answer is
// over its share (a stock 7.8 build takes 1.33 GiB whatever -hash says) is
// reported with a loud warning that says how to build the low-memory one,
// and flipbot plays on with it: on a PC the owner chose that engine
// explicitly (it is the name reported to FlipSight), and a PC usually has
// the memory or swap. The appliance refuses such a build instead
// (egaroucid.Options.RefuseOverShare): a Pi has neither.
//
// Before the bot goes online, [Config.Probe] starts the engine as the bot
// will and asks it for one move in the start position of each mode it
// plays, each within a bound per kind ([Config.Timeout]): a program that is
// missing, not executable, crashes, stays silent or answers an illegal move
// is reported ([ProbeError]: the flag, the program, the cause) instead of
// playing rated games on fallback moves.
//
// Files: external.go ([Config], [Kind]), probe.go ([Config.Probe],
// [ProbeError]). It may import engines,
// engines/othello, engines/internal/adapt, the adapters (engines/jsonline,
// engines/nboard, engines/edax, engines/egaroucid) and engines/sizing. Its
// tests (real_test.go) play the real Edax and Egaroucid through a bot
// against the arena, and so import bot, arena and flipsight: an exception
// to arrows down, test-only, recorded in internal/archtest.
package external

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/edax"
	"flipbot.dev/flipbot/engines/egaroucid"
	"flipbot.dev/flipbot/engines/internal/adapt"
	"flipbot.dev/flipbot/engines/jsonline"
	"flipbot.dev/flipbot/engines/nboard"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/sizing"
)

// Kind is the kind of external engine.
type Kind int

// The kinds of external engine.
const (
	// None means no external engine flag: the bot uses the built-in one.
	None Kind = iota
	JSONLine
	NBoard
	Edax
	Egaroucid
)

// String returns the flag's name of the kind.
func (k Kind) String() string {
	switch k {
	case JSONLine:
		return "engine"
	case NBoard:
		return "nboard"
	case Edax:
		return "edax"
	case Egaroucid:
		return "egaroucid"
	}
	return "none"
}

// Config is the engine part of the connector's flags.
type Config struct {
	Engine      string // --engine CMD
	NBoard      string // --nboard CMD
	NBoardDepth int    // --nboard-depth N (0..60; for Edax 0 means 60)
	Edax        string // --edax PATH
	EdaxEval    string // --edax-eval PATH
	Egaroucid   string // --egaroucid PATH
	// Threads, when positive, is passed to Edax (-n) and Egaroucid (-t);
	// zero means each leg's share of the machine's cores.
	Threads int
	// HashMB, when positive, is the table of Edax (-h) and Egaroucid
	// (-hash) in MiB (--hash-mb); zero means sized from the machine.
	HashMB int
	// Legs is how many engine processes may run at once: two per match
	// that the bot plays at once (zero: 2).
	Legs int
	// Machine is what the sizes are chosen from (zero: sizing.Detect()).
	Machine sizing.Machine
	// Name, when set, overrides the adapters' own names.
	Name string
	// Logger receives the engines' stderr and the adapters' messages.
	Logger *slog.Logger
	// StderrLevel is the log level of the engines' stderr lines.
	StderrLevel slog.Level
	// ProbeTimeout, when positive, bounds each answer of Probe instead of
	// the kind's default (tests).
	ProbeTimeout time.Duration
}

// Starter is implemented by every engine New returns: Start starts its
// process ahead of its first move (for example when the match is accepted),
// so that the engine's start-up is not taken from that move's budget.
type Starter interface {
	Start() error
}

// ErrSeveral is returned when more than one engine flag is set.
var ErrSeveral = errors.New("give only one of --engine, --nboard, --edax, --egaroucid")

// Kind returns the kind the flags ask for.
func (c Config) Kind() (Kind, error) {
	var kinds []Kind
	if c.Engine != "" {
		kinds = append(kinds, JSONLine)
	}
	if c.NBoard != "" {
		kinds = append(kinds, NBoard)
	}
	if c.Edax != "" {
		kinds = append(kinds, Edax)
	}
	if c.Egaroucid != "" {
		kinds = append(kinds, Egaroucid)
	}
	switch len(kinds) {
	case 0:
		if c.EdaxEval != "" {
			return None, errors.New("--edax-eval needs --edax")
		}
		return None, nil
	case 1:
		if c.EdaxEval != "" && kinds[0] != Edax {
			return None, errors.New("--edax-eval needs --edax")
		}
		return kinds[0], nil
	}
	return None, ErrSeveral
}

// PerLeg reports whether the bot makes one instance per leg (NBoard, Edax,
// Egaroucid) rather than one per match (JSON line).
func (c Config) PerLeg() bool {
	k, _ := c.Kind()
	return k != JSONLine
}

// Provider returns the provider of the configured engine's sessions: one
// instance per match for a JSON-line engine, else one per leg from a warm
// pool keeping up to warm instances running between matches (two per match
// the bot plays at once), prewarmed for the first match. Call done after
// the bot has stopped: it closes the warm instances.
func (c Config) Provider(warm int) (p engines.Provider, done func() error) {
	if !c.PerLeg() {
		return engines.PerMatch(c.New, c.Logger), func() error { return nil }
	}
	pool := engines.NewPool(engines.PoolConfig{New: c.New, Keep: max(1, warm), Logger: c.Logger})
	return engines.PerLeg(pool), pool.Close
}

// Supports reports whether the configured engine plays mode: every mode
// for a JSON-line engine (the user declares its modes on the site), std
// only for the others.
func (c Config) Supports(mode othello.Mode) bool {
	k, _ := c.Kind()
	return k == JSONLine || mode == othello.Std
}

// Check validates the flags without starting anything: the command line
// splits, the binaries exist, Edax's eval.dat is found, the depth is in
// range. The bot calls it at startup to fail early. It logs the settings
// chosen for Edax and Egaroucid, and warns when they do not fit the
// machine's memory.
func (c Config) Check() error {
	k, err := c.Kind()
	if err != nil {
		return err
	}
	if k == None {
		return nil
	}
	e, err := c.New()
	if err != nil {
		return &ProbeError{Flag: "--" + k.String(), Program: c.program(k), Cause: startCause(err), Err: err}
	}
	if p, ok := c.Plan(); ok && c.Logger != nil {
		args := []any{"engine", k.String(), "threads", p.Threads, "table", p.Table,
			"rss_mib_estimate", p.RSS >> 20, "share_mib", p.Share >> 20, "processes", c.legs()}
		if p.Fits {
			c.Logger.Info("external engine sized to the machine", args...)
		} else {
			c.Logger.Warn("external engine does not fit its share of the memory: expect swapping or the OOM killer; "+
				"lower --max-matches or --hash-mb", args...)
		}
	}
	return e.Close()
}

// Plan returns the settings New gives Edax or Egaroucid (ok false for the
// other kinds): each leg's share of the machine, with --threads and
// --hash-mb winning. RSS is the estimate for the table chosen; Fits
// reports whether it is inside the share.
func (c Config) Plan() (sizing.Plan, bool) {
	k, _ := c.Kind()
	m := c.Machine
	if m.Memory == 0 {
		m = sizing.Detect()
	}
	var p sizing.Plan
	switch k {
	case Edax:
		p = sizing.Edax(m, c.legs())
		if c.HashMB > 0 {
			p.Table = sizing.EdaxTable(c.HashMB)
			p.RSS = sizing.EdaxRSS(p.Table)
		}
	case Egaroucid:
		p = sizing.Egaroucid(m, c.legs())
		if c.HashMB > 0 {
			p.Table = sizing.EgaroucidTable(c.HashMB)
			p.RSS = sizing.EgaroucidRSS(p.Table)
		}
	default:
		return sizing.Plan{}, false
	}
	if c.Threads > 0 {
		p.Threads = c.Threads
	}
	p.Fits = p.RSS <= p.Share
	return p, true
}

func (c Config) legs() int {
	if c.Legs > 0 {
		return c.Legs
	}
	return 2
}

// New returns a new engine instance (see the package comment for how many
// to make). Its process starts at its first move.
func (c Config) New() (engines.Engine, error) {
	k, err := c.Kind()
	if err != nil {
		return nil, err
	}
	if c.NBoardDepth < 0 || c.NBoardDepth > 60 {
		return nil, fmt.Errorf("--nboard-depth %d outside 0..60", c.NBoardDepth)
	}
	p, _ := c.Plan()
	switch k {
	case JSONLine:
		return jsonline.New(jsonline.Options{Command: c.Engine, Name: c.Name, Logger: c.Logger, StderrLevel: c.StderrLevel})
	case NBoard:
		return nboard.New(nboard.Options{Command: c.NBoard, Depth: c.NBoardDepth, Name: c.Name, Logger: c.Logger, StderrLevel: c.StderrLevel,
			Think: func(req engines.Request) time.Duration { return adapt.ThinkTime(req, nboard.DefaultStopMargin) }})
	case Edax:
		return edax.New(edax.Options{Path: c.Edax, EvalFile: c.EdaxEval, Depth: c.NBoardDepth, Threads: p.Threads, Hash: p.Table,
			Name: c.Name, Logger: c.Logger, StderrLevel: c.StderrLevel})
	case Egaroucid:
		return egaroucid.New(egaroucid.Options{Path: c.Egaroucid, Threads: p.Threads, Hash: p.Table, MemoryShare: p.Share,
			Name: c.Name, Logger: c.Logger, StderrLevel: c.StderrLevel})
	}
	return nil, errors.New("no external engine configured")
}
