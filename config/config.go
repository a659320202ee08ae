// Package config turns the command line and the environment into settings.
// The connector's flags are those of the official Python connector
// (tools/bot_match_client.py), spelled and bounded the same way, plus a few
// of ours; the token is read only from the environment variable
// FS_BOT_TOKEN, never from a flag or a file given on the command line.
// It also owns the appliance's flags (ParseAppliance) and the names of
// every environment variable read (TokenEnv, HomeEnv, DataHomeEnv,
// ConfigHomeEnv, EngineEnvEnv).
//
// Files: config.go (the connector's flags, [ParseBot], and the challenge's,
// [ParseChallenge]), appliance.go ([ParseAppliance]), dirs.go (the data
// and config folders, [DefaultGamesDir]).
//
// It may import flipsight only: the token is a flipsight.Token and the
// URLs are checked by flipsight's rules, so config sits just above
// flipsight; nothing of engines, bot, arena, appliance or cmd.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"flipbot.dev/flipbot/flipsight"
)

// TokenEnv is the environment variable holding the bot token.
const TokenEnv = "FS_BOT_TOKEN"

// Limits of the flags.
const (
	MaxThinkSecondsMax = 300
	NBoardDepthMax     = 60
	maxNameLen         = flipsight.MaxEnvironmentLen
)

// DefaultPonder is --ponder's default: whether the built-in engine thinks
// on the opponent's time unless told otherwise. Off: pondering did not
// measure stronger (docs/measurements/2026-12-05-pondering.md).
const DefaultPonder = false

// DefaultDrain is --drain's default: long enough for a FlipSight bot
// match started just before the stop (two legs played at once on a 60 s
// clock per colour: at most 120 s of clocks, and 30 s for the server's
// turnarounds and the polls); bot.DefaultDrain is the same figure.
const DefaultDrain = 150 * time.Second

// Log formats of --log-format.
const (
	LogText = "text"
	LogJSON = "json"
)

// Bot holds the connector's settings.
type Bot struct {
	// Engine selection: at most one of these; none means the built-in
	// engine.
	Engine      string // --engine CMD (JSON line protocol)
	NBoard      string // --nboard CMD
	NBoardDepth int    // --nboard-depth N (0–60, 0 = engine default)
	Edax        string // --edax PATH
	EdaxEval    string // --edax-eval PATH
	Egaroucid   string // --egaroucid PATH

	// MaxThink is --max-think-seconds (default 10 s, at most 300 s, 0 = no
	// per-move cap).
	MaxThink time.Duration
	// EngineName and CPUName are reported to FlipSight (≤ 120 characters);
	// CPUName empty means auto-detect.
	EngineName, CPUName string
	// OnceMatch is --once-match ID (0 = none; negative for a human match).
	OnceMatch int64
	// MaxRuntime is --max-runtime S (0 = none).
	MaxRuntime time.Duration
	// Drain is --drain: after the first SIGINT/SIGTERM, how long the running
	// matches are played on (default DefaultDrain; 0 = not at all, only the
	// moves in flight are finished).
	Drain time.Duration
	// NoStream is --no-stream.
	NoStream bool
	// API and StreamURL are --api and --stream-url (empty = defaults).
	API, StreamURL string

	// Ours.
	Threads    int    // --threads (0 = all cores)
	HashMB     int    // --hash-mb (0 = engine default)
	Eval       string // --eval best|pattern|baseline: the built-in engine's evaluation
	Ponder     bool   // --ponder: the built-in engine thinks on the opponent's time
	MaxMatches int    // --max-matches (default 2)
	LogFormat  string // --log-format text|json
	Verbose    bool   // --verbose: debug logs
	// GamesDir is --games-dir (default: the data directory's games/; ""
	// with --no-records or when no directory is known): where the game
	// records are kept.
	GamesDir  string
	NoRecords bool // --no-records

	// Token is FS_BOT_TOKEN.
	Token flipsight.Token
}

// EngineKind names the engine the flags select.
func (b *Bot) EngineKind() string {
	switch {
	case b.Engine != "":
		return "engine"
	case b.NBoard != "":
		return "nboard"
	case b.Edax != "":
		return "edax"
	case b.Egaroucid != "":
		return "egaroucid"
	}
	return "builtin"
}

// ErrNoToken is returned (wrapped) when FS_BOT_TOKEN is missing or unusable:
// the connector exits with code 2.
var ErrNoToken = errors.New(TokenEnv + " is missing or invalid")

// ParseBot parses the connector's arguments (without the program name) and
// reads the token with getenv. Usage goes to usage. It returns
// flag.ErrHelp for -h/--help, an error wrapping ErrNoToken for a missing or
// malformed token (checked last, so flag errors come first), and other
// errors for bad flags.
func ParseBot(args []string, getenv func(string) string, usage io.Writer) (Bot, error) {
	var b Bot
	fs := flag.NewFlagSet("flipbot", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.StringVar(&b.Engine, "engine", "", "run `CMD` once per match and exchange one JSON line per move")
	fs.StringVar(&b.NBoard, "nboard", "", "run the NBoard engine `CMD`, one per leg (std only)")
	fs.IntVar(&b.NBoardDepth, "nboard-depth", 0, "send 'set depth N' to NBoard engines (0-60, 0 = engine default)")
	fs.StringVar(&b.Edax, "edax", "", "run Edax at `PATH` in NBoard mode (std only)")
	fs.StringVar(&b.EdaxEval, "edax-eval", "", "Edax's eval.dat at `PATH` (default: next to the binary or in ../data/)")
	fs.StringVar(&b.Egaroucid, "egaroucid", "", "run Egaroucid for Console at `PATH`, one per leg (std only)")
	think := fs.Float64("max-think-seconds", 10, "longest wait for one move, in seconds (at most 300; 0 = only the clock)")
	fs.StringVar(&b.EngineName, "engine-name", "", "engine `NAME` reported to FlipSight (at most 120 characters)")
	fs.StringVar(&b.CPUName, "cpu-name", "", "CPU `NAME` reported to FlipSight (default: detected)")
	fs.Int64Var(&b.OnceMatch, "once-match", 0, "play only match `ID` and exit when it ends (negative for a human match)")
	runtime := fs.Float64("max-runtime", 0, "exit with code 3 after this many seconds")
	fs.DurationVar(&b.Drain, "drain", DefaultDrain, "after the first Ctrl-C/SIGTERM, play the running matches to their end for at most this `DURATION` (0 = only finish the moves in flight); a second one quits at once")
	fs.BoolVar(&b.NoStream, "no-stream", false, "poll only, without the event stream")
	fs.StringVar(&b.API, "api", "", "API `URL` (default "+flipsight.DefaultAPIURL+")")
	fs.StringVar(&b.StreamURL, "stream-url", "", "stream `URL` (default: on the API's host)")
	fs.IntVar(&b.Threads, "threads", 0, "threads of the built-in engine (0 = all cores), or of each Edax/Egaroucid leg (0 = half the cores)")
	fs.IntVar(&b.HashMB, "hash-mb", 0, "transposition table of the built-in engine, or of each Edax/Egaroucid leg, in `MiB` (0 = default; sized to the memory for Edax/Egaroucid)")
	fs.StringVar(&b.Eval, "eval", "best", "evaluation of the built-in engine: best (per mode the one measured stronger: today the trained one in every mode), pattern (trained in every mode) or baseline (hand-made)")
	fs.BoolVar(&b.Ponder, "ponder", DefaultPonder, "let the built-in engine think on the opponent's time, on the cores no move needs (external engines never ponder)")
	fs.IntVar(&b.MaxMatches, "max-matches", 2, "matches played at once (a pair and a human match count 1 each)")
	fs.StringVar(&b.LogFormat, "log-format", LogText, "log format: text or json")
	fs.BoolVar(&b.Verbose, "verbose", false, "debug logs")
	fs.StringVar(&b.GamesDir, "games-dir", "", "keep the game records in `DIR` (default: "+GamesDirName+"/ in the data directory, ~/.local/share/flipbot)")
	fs.BoolVar(&b.NoRecords, "no-records", false, "keep no game records")
	if err := fs.Parse(args); err != nil {
		return Bot{}, err
	}
	if fs.NArg() > 0 {
		return Bot{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var errs []error
	n := 0
	for _, s := range []string{b.Engine, b.NBoard, b.Edax, b.Egaroucid} {
		if s != "" {
			n++
		}
	}
	if n > 1 {
		errs = append(errs, errors.New("give at most one of --engine, --nboard, --edax, --egaroucid"))
	}
	if b.EdaxEval != "" && b.Edax == "" {
		errs = append(errs, errors.New("--edax-eval needs --edax"))
	}
	if b.NBoardDepth < 0 || b.NBoardDepth > NBoardDepthMax {
		errs = append(errs, fmt.Errorf("--nboard-depth must be 0-%d", NBoardDepthMax))
	}
	if *think < 0 || *think > MaxThinkSecondsMax || *think != *think {
		errs = append(errs, fmt.Errorf("--max-think-seconds must be 0-%d", MaxThinkSecondsMax))
	} else {
		b.MaxThink = time.Duration(*think * float64(time.Second))
	}
	if *runtime < 0 || *runtime != *runtime || *runtime > 1e9 {
		errs = append(errs, errors.New("--max-runtime must be a non-negative number of seconds"))
	} else {
		b.MaxRuntime = time.Duration(*runtime * float64(time.Second))
	}
	for name, v := range map[string]string{"--engine-name": b.EngineName, "--cpu-name": b.CPUName} {
		if len([]rune(v)) > maxNameLen {
			errs = append(errs, fmt.Errorf("%s must be at most %d characters", name, maxNameLen))
		}
	}
	if b.Drain < 0 {
		errs = append(errs, errors.New("--drain must not be negative"))
	}
	if b.Threads < 0 {
		errs = append(errs, errors.New("--threads must be ≥ 0"))
	}
	if b.HashMB < 0 || b.HashMB > 1<<16 {
		errs = append(errs, errors.New("--hash-mb must be 0-65536"))
	}
	if b.MaxMatches < 1 {
		errs = append(errs, errors.New("--max-matches must be ≥ 1"))
	}
	if b.Eval != "" && b.Eval != "best" && b.Eval != "pattern" && b.Eval != "baseline" {
		errs = append(errs, errors.New("--eval must be best, pattern or baseline"))
	}
	if b.LogFormat != LogText && b.LogFormat != LogJSON {
		errs = append(errs, fmt.Errorf("--log-format must be %s or %s", LogText, LogJSON))
	}
	if b.API != "" {
		if _, err := flipsight.CheckURL(b.API); err != nil {
			errs = append(errs, fmt.Errorf("--api: %w", err))
		}
	}
	if b.NoRecords && b.GamesDir != "" {
		errs = append(errs, errors.New("give --games-dir or --no-records, not both"))
	}
	if len(errs) > 0 {
		return Bot{}, errors.Join(errs...)
	}
	if _, _, err := flipsight.StreamURLFor(orDefault(b.API), b.StreamURL); err != nil {
		return Bot{}, fmt.Errorf("--stream-url: %w", err)
	}
	if b.GamesDir == "" && !b.NoRecords {
		b.GamesDir = DefaultGamesDir(getenv, false)
	}
	tok, err := flipsight.NewToken(getenv(TokenEnv))
	if err != nil {
		return Bot{}, fmt.Errorf("%w: %v", ErrNoToken, err)
	}
	b.Token = tok
	return b, nil
}

func orDefault(api string) string {
	if api == "" {
		return flipsight.DefaultAPIURL
	}
	return api
}

// Limits and defaults of `flipbot challenge`'s retries.
const (
	ChallengeRetriesDefault = 5
	ChallengeRetriesMax     = 100
	ChallengeWaitDefault    = 30 * time.Second
	ChallengeWaitMax        = time.Hour
)

// Challenge holds the settings of `flipbot challenge`.
type Challenge struct {
	// TargetID is set when the target was a number, else TargetName.
	TargetID   int64
	TargetName string
	// Mode is --mode (default std).
	Mode           string
	API, StreamURL string
	// Engine, NBoard, Edax and Egaroucid name the engine the bot plays
	// with, as the connector's flags (at most one; none is the built-in
	// engine), so that a mode it cannot play is not asked for. Nothing is
	// started.
	Engine, NBoard, Edax, Egaroucid string
	// Retries is --retries: how many times the challenge is sent again
	// while FlipSight answers "site bot variant matches are full" (default
	// 5, at most 100).
	Retries int
	// RetryWait is --retry-wait: the wait before each of those (default
	// 30 s, at most an hour); a Retry-After header wins.
	RetryWait time.Duration
	Token     flipsight.Token
}

// challengeUsage is what `flipbot challenge -h` prints before the flags.
const challengeUsage = `usage: flipbot challenge NAME|ID [--mode MODE] [flags]

Challenge another bot to a match: NAME is its name as FlipSight lists it,
ID its numeric id (flags may come before or after it). The bot's token is
read from ` + TokenEnv + `. It prints the match id. Exit codes: 0 sent, 1 not
sent (refused before sending, or by FlipSight), 2 ` + TokenEnv + ` missing or
rejected, or bad flags or arguments.

Flags of flipbot challenge:
`

// ParseChallenge parses `flipbot challenge NAME|ID [--mode MODE] [--api URL]
// [engine flag] [--retries N] [--retry-wait S]` (flags before or after the
// target).
func ParseChallenge(args []string, getenv func(string) string, usage io.Writer) (Challenge, error) {
	var c Challenge
	fs := flag.NewFlagSet("flipbot challenge", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.StringVar(&c.Mode, "mode", flipsight.ModeStd, "game `MODE`: std, anti, grand, octagon or reversi")
	fs.StringVar(&c.API, "api", "", "API `URL`")
	fs.StringVar(&c.StreamURL, "stream-url", "", "stream `URL` (checked like the connector's)")
	fs.StringVar(&c.Engine, "engine", "", "the bot plays with this --engine `CMD` (every mode; not started)")
	fs.StringVar(&c.NBoard, "nboard", "", "the bot plays with this --nboard `CMD` (std only; not started)")
	fs.StringVar(&c.Edax, "edax", "", "the bot plays with Edax at `PATH` (std only; not started)")
	fs.StringVar(&c.Egaroucid, "egaroucid", "", "the bot plays with Egaroucid at `PATH` (std only; not started)")
	fs.IntVar(&c.Retries, "retries", ChallengeRetriesDefault, "times to send the challenge again while FlipSight's site bot variant matches are full (0-100)")
	wait := fs.Float64("retry-wait", ChallengeWaitDefault.Seconds(), "seconds to wait before each of those (a Retry-After header wins)")
	fs.Usage = func() {
		fmt.Fprint(usage, challengeUsage)
		fs.PrintDefaults()
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return Challenge{}, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 1 {
		return Challenge{}, errors.New("give one target, NAME or ID (usage: flipbot challenge NAME|ID [--mode MODE] [flags])")
	}
	switch c.Mode {
	case flipsight.ModeStd, flipsight.ModeAnti, flipsight.ModeGrand, flipsight.ModeOctagon, flipsight.ModeReversi:
	default:
		return Challenge{}, fmt.Errorf("--mode %q: want std, anti, grand, octagon or reversi", c.Mode)
	}
	n := 0
	for _, s := range []string{c.Engine, c.NBoard, c.Edax, c.Egaroucid} {
		if s != "" {
			n++
		}
	}
	if n > 1 {
		return Challenge{}, errors.New("give at most one of --engine, --nboard, --edax, --egaroucid")
	}
	if c.Retries < 0 || c.Retries > ChallengeRetriesMax {
		return Challenge{}, fmt.Errorf("--retries must be 0-%d", ChallengeRetriesMax)
	}
	if !(*wait > 0 && *wait <= ChallengeWaitMax.Seconds()) {
		return Challenge{}, fmt.Errorf("--retry-wait must be more than 0 and at most %.0f seconds", ChallengeWaitMax.Seconds())
	}
	c.RetryWait = time.Duration(*wait * float64(time.Second))
	target := strings.TrimSpace(pos[0])
	if id, err := strconv.ParseInt(target, 10, 64); err == nil {
		if id < 1 {
			return Challenge{}, errors.New("target id must be ≥ 1")
		}
		c.TargetID = id
	} else if target == "" {
		return Challenge{}, errors.New("empty target")
	} else {
		c.TargetName = target
	}
	if _, _, err := flipsight.StreamURLFor(orDefault(c.API), c.StreamURL); err != nil {
		return Challenge{}, err
	}
	tok, err := flipsight.NewToken(getenv(TokenEnv))
	if err != nil {
		return Challenge{}, fmt.Errorf("%w: %v", ErrNoToken, err)
	}
	c.Token = tok
	return c, nil
}
