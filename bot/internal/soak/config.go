package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines/othello"
)

// config is what a soak run does, from the command line.
type config struct {
	// Duration is how long to play.
	Duration time.Duration
	// FaultEvery is the mean interval between injected faults.
	FaultEvery time.Duration
	// Clock is the arena's clock per leg and colour.
	Clock time.Duration
	// MaxThink is the bot's cap on one move's think.
	MaxThink time.Duration
	// Level is the house bot's level (0 random, 1 greedy, 2+ search depth).
	Level int
	// Out is the directory for the engine binary, the bot's log, the
	// samples and the profiles; empty: a new temporary directory.
	Out string
	// EngineBin is a flipengine binary; empty: built into Out.
	EngineBin string
	// SampleEvery is the resource sampling interval.
	SampleEvery time.Duration
	// ProgressEvery is the interval of the progress lines.
	ProgressEvery time.Duration
	// HeapEvery is the heap profiles' interval, 0 for none.
	HeapEvery time.Duration
	// CPUProfile writes a CPU profile of the whole run to Out/cpu.pprof.
	CPUProfile bool
	// Modes are played in turn.
	Modes []othello.Mode
}

// parseConfig reads the command line (without the program's name); the
// usage goes to stderr. It returns flag.ErrHelp for -h.
func parseConfig(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&c.Duration, "duration", time.Hour, "how long to play")
	fs.DurationVar(&c.FaultEvery, "fault-every", 20*time.Second, "mean interval between injected faults")
	fs.DurationVar(&c.Clock, "clock", 60*time.Second, "clock per leg and colour")
	fs.DurationVar(&c.MaxThink, "max-think", 10*time.Second, "the bot's --max-think-seconds (0: no cap); flipbot's default")
	fs.IntVar(&c.Level, "level", 4, "the house bot's level (0 random, 1 greedy, 2+ search depth): at 4 most games go to the board's end, so the clock is spent")
	fs.StringVar(&c.Out, "out", "", "directory for the engine binary, the bot's log and the samples (default: a temporary directory)")
	fs.StringVar(&c.EngineBin, "engine-bin", "", "a flipengine binary (default: built with go build)")
	fs.DurationVar(&c.SampleEvery, "sample-every", 30*time.Second, "resource sampling interval")
	fs.DurationVar(&c.ProgressEvery, "progress-every", 5*time.Minute, "interval of the progress lines on stdout")
	modeList := fs.String("modes", "", "comma-separated modes to play in turn (default: all five)")
	fs.BoolVar(&c.CPUProfile, "cpuprofile", false, "write a CPU profile of the whole run (bot and arena) to -out/cpu.pprof")
	fs.DurationVar(&c.HeapEvery, "heap-every", 0, "write a heap profile (after a GC) to -out/heap/SECONDS.pprof at this interval and at the end (0: none); compare two with go tool pprof -base")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	modes, err := parseModes(*modeList)
	if err != nil {
		return config{}, err
	}
	c.Modes = modes
	return c, c.check()
}

// check reports a configuration that cannot run.
func (c config) check() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"-duration", c.Duration}, {"-fault-every", c.FaultEvery}, {"-clock", c.Clock},
		{"-sample-every", c.SampleEvery}, {"-progress-every", c.ProgressEvery},
	} {
		if d.v <= 0 {
			return fmt.Errorf("%s must be positive (got %v)", d.name, d.v)
		}
	}
	if c.MaxThink < 0 || c.HeapEvery < 0 {
		return errors.New("-max-think and -heap-every cannot be negative")
	}
	if (c.CPUProfile || c.HeapEvery > 0) && c.Out == "" {
		return errors.New("-cpuprofile and -heap-every need -out")
	}
	if len(c.Modes) == 0 {
		return errors.New("no mode to play")
	}
	return nil
}

// parseModes reads the -modes flag: empty means all five.
func parseModes(list string) ([]othello.Mode, error) {
	if list == "" {
		return othello.AllModes(), nil
	}
	var modes []othello.Mode
	for _, name := range strings.Split(list, ",") {
		m, err := othello.ParseMode(strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("-modes: %w", err)
		}
		modes = append(modes, m)
	}
	return modes, nil
}
