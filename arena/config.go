package arena

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/internal/clock"
)

// Timing and limits of the service (the spec's figures), used when a
// [Config] field is zero.
const (
	DefaultClock          = 60 * time.Second  // per leg, per colour
	DefaultFirstMove      = 30 * time.Second  // no first move → aborted
	DefaultDisconnect     = 30 * time.Second  // disconnected longer → loss
	DefaultChallengeTTL   = 120 * time.Second // pending challenges expire
	DefaultPingInterval   = 10 * time.Second  // stream pings
	DefaultAutoMatchPause = 10 * time.Minute  // after an ignored auto offer
	DefaultKeepFinished   = 10 * time.Minute  // finished matches stay listed
	DefaultPollGrace      = 15 * time.Second  // a poll keeps a stream-less bot connected this long
	DefaultMaxMatches     = 2                 // concurrent matches per bot
	DefaultMaxStreams     = 3                 // streams per bot
	DefaultMaxFinished    = 500               // finished matches kept at most
	DefaultBuiltinVariant = 2                 // built-in variant matches at once, site-wide
	MaxBodyBytes          = 64 << 10          // larger POST bodies get 413
)

// BotConfig registers one bot.
type BotConfig struct {
	// Name is shown to other bots (2–24 characters on the real site).
	Name string
	// Token is the bot's Bearer token; empty for built-in bots.
	Token string
	// Modes are the supported games; empty means std only.
	Modes []othello.Mode
	// Builtin marks a bot played by the server itself with Engine.
	Builtin bool
	// Engine plays a built-in bot. Nil gives the arena's own player at Level.
	Engine engines.Engine
	// sessions plays a built-in bot with one engine session per match
	// instead (tournaments).
	sessions *matchSessions
	// Level is the built-in strength, reported as engine_level: 0 random,
	// 1 greedy, 2–59 the search engine to that depth, 60 full strength.
	Level int
	// Strict makes a built-in bot whose engine fails or answers an illegal
	// move play nothing, so the leg runs out of time, as the official
	// connector does with a JSON engine; otherwise the first legal move is
	// played instead.
	Strict bool
	// MaxMatches is the bot's concurrent-match limit (default 2).
	MaxMatches int
	// NoAutoMatch turns automatic matching off for this bot.
	NoAutoMatch bool
}

// Config configures a [Server]. Zero fields take the spec's values.
type Config struct {
	Bots []BotConfig
	// Clock is the time source (the system's when nil).
	Clock clock.Clock
	// Logger receives the server's log lines (discarded when nil).
	Logger *slog.Logger
	// Seed seeds the random starts (0: from the clock).
	Seed uint64
	// ClockPerLeg is each colour's time per leg (60 s).
	ClockPerLeg time.Duration
	// FirstMove, Disconnect, ChallengeTTL, PingInterval, KeepFinished and
	// PollGrace override the spec's timings.
	FirstMove, Disconnect, ChallengeTTL, PingInterval, KeepFinished, PollGrace time.Duration
	// AutoMatch offers std matches to idle online bots with auto-match on.
	AutoMatch bool
	// MaxStreams per bot (3); MaxFinished bounds the finished matches kept.
	MaxStreams, MaxFinished int
	// NoFirstMoveAbort and NoDisconnectLoss turn those rules off
	// (tournaments between in-process engines use both off).
	NoFirstMoveAbort, NoDisconnectLoss bool
	// SearchThreads is the cores of the built-in search engine (half the
	// machine when 0).
	SearchThreads int
	// AdminFromAnywhere allows /arena/admin/* from non-loopback clients.
	AdminFromAnywhere bool
	// AdminHosts are host names /arena/admin/* answers to besides IP
	// addresses, localhost and the machine's host name (alone and under
	// .local, .lan, .home, .home.arpa, .internal); a request for any other
	// Host is refused (DNS rebinding).
	AdminHosts []string
}

func (c *Config) withDefaults() {
	if c.Clock == nil {
		c.Clock = clock.System()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.ClockPerLeg, DefaultClock)
	def(&c.FirstMove, DefaultFirstMove)
	def(&c.Disconnect, DefaultDisconnect)
	def(&c.ChallengeTTL, DefaultChallengeTTL)
	def(&c.PingInterval, DefaultPingInterval)
	def(&c.KeepFinished, DefaultKeepFinished)
	def(&c.PollGrace, DefaultPollGrace)
	if c.MaxStreams <= 0 {
		c.MaxStreams = DefaultMaxStreams
	}
	if c.MaxFinished <= 0 {
		c.MaxFinished = DefaultMaxFinished
	}
}

// ParseBotFlag reads a --bot value NAME:TOKEN[:MODES], MODES a comma list
// such as std,anti (default std).
func ParseBotFlag(s string) (BotConfig, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return BotConfig{}, fmt.Errorf("bot %q: want NAME:TOKEN[:MODES]", redactBotFlag(s))
	}
	b := BotConfig{Name: parts[0], Token: parts[1]}
	if err := checkName(b.Name); err != nil {
		return BotConfig{}, err
	}
	if b.Token == "" {
		return BotConfig{}, fmt.Errorf("bot %q: empty token", b.Name)
	}
	if len(parts) == 3 {
		modes, err := ParseModes(parts[2])
		if err != nil {
			return BotConfig{}, fmt.Errorf("bot %q: %w", b.Name, err)
		}
		b.Modes = modes
	}
	return b, nil
}

// redactBotFlag keeps the name of a --bot value and hides the rest.
func redactBotFlag(s string) string {
	if i := strings.IndexByte(s, ':'); i >= 0 {
		return s[:i] + ":…"
	}
	return "…"
}

// ParseBuiltinFlag reads a --builtin value NAME[:LEVEL[:MODES]]; built-in
// bots support every mode unless MODES says otherwise.
func ParseBuiltinFlag(s string) (BotConfig, error) {
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return BotConfig{}, fmt.Errorf("builtin %q: want NAME[:LEVEL[:MODES]]", s)
	}
	b := BotConfig{Name: parts[0], Builtin: true, Level: DefaultBuiltinLevel, Modes: othello.AllModes()}
	if err := checkName(b.Name); err != nil {
		return BotConfig{}, err
	}
	if len(parts) >= 2 && parts[1] != "" {
		n, err := strconv.Atoi(parts[1])
		if err != nil || n < 0 || n > 60 {
			return BotConfig{}, fmt.Errorf("builtin %q: level %q is not 0..60", b.Name, parts[1])
		}
		b.Level = n
	}
	if len(parts) == 3 {
		modes, err := ParseModes(parts[2])
		if err != nil {
			return BotConfig{}, fmt.Errorf("builtin %q: %w", b.Name, err)
		}
		b.Modes = modes
	}
	return b, nil
}

// ParseModes reads a comma list of game modes ("std,anti", or "all").
func ParseModes(s string) ([]othello.Mode, error) {
	if s == "all" {
		return othello.AllModes(), nil
	}
	var out []othello.Mode
	for _, f := range strings.Split(s, ",") {
		m, err := othello.ParseMode(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("modes %q: %w", s, err)
		}
		out = append(out, m)
	}
	return out, nil
}

func checkName(name string) error {
	if n := len([]rune(name)); n < 2 || n > 24 {
		return fmt.Errorf("bot name %q: want 2 to 24 characters", name)
	}
	return nil
}
