package bot

import (
	"context"
	"log/slog"
	"time"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock"
)

// Engines tells the bot what plays and how to describe it.
type Engines struct {
	// Name is reported as environment.engine (≤ 120 characters).
	Name string
	// Describe, when set, names what plays now (an engine that falls back
	// to another while the first is busy or refused): it is called before
	// every agent_poll, from the bot's loop, and its answer is reported as
	// environment.engine instead of Name. It must return quickly.
	Describe func() string
	// Practice is reported as environment.practice (true only for a
	// practice engine).
	Practice bool
	// Modes the engine plays; challenges in other modes are rejected. Nil
	// means all five.
	Modes []othello.Mode
	// SpecTimed says the engines speak the spec's --engine protocol and keep
	// its budget_ms themselves (engines/jsonline): every own turn reaches
	// them, forced ones included, and the bot waits for an answer until the
	// mover's clock is down to the spec's 0.75 s margin. Other engines are
	// timed by the bot's clock plan (see Plan).
	SpecTimed bool
	// Wire says the engines read the spec's wire request (Request.Wire);
	// the bot builds it for them only (and always for SpecTimed engines,
	// engines/jsonline).
	Wire bool
	// Quick, when set, makes the moves the engine is not asked for or
	// could not make (the clock plan's panic mode; a fallback after the
	// engine failed, timed out, answered an illegal move or was not
	// available): a search in the bot's process for the plan's quick think
	// (timeplan's Move.Quick, a few milliseconds, at most 50 ms), whatever
	// engine plays the other moves. Without it, or when it does not answer
	// within that think, the bot plays its one-ply quick move. The callers
	// give the built-in engine (cmd/flipbot, the appliance).
	Quick engines.QuickMover
	// Provider opens the engines of each match: the bot opens one session
	// when it accepts (or picks up) a match and closes it, exactly once,
	// when the match ends (or was never accepted), or when Run ends. The
	// provider itself is the caller's: close what it holds (a warm pool)
	// after Run. When it is an engines.Prewarmer, Run prewarms it first.
	Provider engines.Provider
}

// supports reports whether the factory's engines play mode.
func (f *Engines) supports(mode othello.Mode) bool {
	if f.Modes == nil {
		return true
	}
	for _, m := range f.Modes {
		if m == mode {
			return true
		}
	}
	return false
}

// Timing holds the bot's intervals; the zero value means the spec's figures.
// Tests shorten them.
type Timing struct {
	// PollStream is the poll interval while the stream is up (10 s).
	PollStream time.Duration
	// PollMatch is the interval without a stream during a match (1 s).
	PollMatch time.Duration
	// PollIdle is the interval without a stream and no match (5 s).
	PollIdle time.Duration
	// MinPollGap is the least time between two periodic polls (1 s), the
	// spec's "never more than once a second".
	MinPollGap time.Duration
	// BackoffMin and BackoffMax bound the stream reconnection backoff
	// (1 s, 30 s).
	BackoffMin, BackoffMax time.Duration
	// ProbeEvery is how often a failing engine is probed while no match
	// runs (1 min).
	ProbeEvery time.Duration
}

func (t Timing) withDefaults() Timing {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.PollStream, 10*time.Second)
	def(&t.PollMatch, time.Second)
	def(&t.PollIdle, 5*time.Second)
	def(&t.MinPollGap, time.Second)
	def(&t.BackoffMin, time.Second)
	def(&t.BackoffMax, 30*time.Second)
	def(&t.ProbeEvery, time.Minute)
	return t
}

// Recorder keeps game records; *record.Store is one.
type Recorder interface {
	Add(record.Game) error
}

// Options configure a Bot. Client and Engine are required.
type Options struct {
	// Client talks to FlipSight.
	Client *flipsight.Client
	// Engine is what plays.
	Engine Engines
	// CPU and OS are reported in agent_poll's environment (the engine name
	// and practice flag come from Engine).
	CPU, OS string
	// MaxThink caps the time one move may take (the --max-think-seconds
	// option); 0 means no cap but the clock.
	MaxThink time.Duration
	// MaxMatches is how many matches run at once (default 2; a pair and a
	// human match count 1 each).
	MaxMatches int
	// OnceMatch, when non-zero, plays only that match (accepting it if
	// pending) and makes Run return when it has ended.
	OnceMatch int64
	// NoStream polls only (the --no-stream option).
	NoStream bool
	// Logger receives the bot's logs (slog.Default() when nil).
	Logger *slog.Logger
	// Clock is the time source (the system clock when nil; see clock.go).
	Clock clock.Clock
	// OnStatus, when set, is called with a fresh snapshot after every change
	// of the status, from the bot's loop: it must return quickly and must not
	// call back into the Bot.
	OnStatus func(Status)
	// MoveDetail logs each own move with every figure of its plan and
	// search (budget, overhead, nodes, clocks: the --verbose and JSON
	// logs); otherwise a short line a person reads, the figures at debug
	// level.
	MoveDetail bool
	// Probe, when set, checks that the engine answers (the start position
	// of each mode it plays: engines/external's Config.Probe). The bot
	// calls it between matches after the engine failed on failingAfter own
	// moves in a row, and accepts matches again once it returns nil;
	// without it the engine is taken as answering again after
	// Timing.ProbeEvery.
	Probe func(ctx context.Context) error
	// Timing overrides the spec's intervals (tests).
	Timing Timing
	// Results is how many recent results the status keeps (default 20).
	Results int
	// Records, when set, keeps the record of every finished leg of every
	// match (both legs of a pair, each round of a human match). Add is
	// called off the bot's loop, one game at a time; Run waits for the
	// calls in flight before it returns. Its errors are logged, never
	// fatal.
	Records Recorder
	// Ponder lets an engine that can (engines.Ponderer: the built-in
	// engine) think on the opponent's time after each own move, on the
	// cores no move needs (the --ponder flag).
	Ponder bool
	// Drain bounds how long the running matches are played on after Run's
	// context is cancelled (DefaultDrain when 0; negative: not at all, only
	// the moves in flight are finished). Nothing new is accepted meanwhile;
	// Bot.Stop ends the drain at once.
	Drain time.Duration
	// MoveDrain bounds the wait for the moves in flight once the bot stops
	// playing (the drain is over, Bot.Stop, the token was rejected, the
	// OnceMatch match ended; default 15 s); then they are abandoned.
	MoveDrain time.Duration
	// QuitHint, when set, is added to the log line of a stop request: how
	// the owner stops at once (cmd/flipbot: send the signal again).
	QuitHint string
}
