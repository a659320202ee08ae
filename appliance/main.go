package appliance

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"sync"

	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/proc"
)

// recorder returns s as the bot's recorder, nil when there is none.
func recorder(s *record.Store) bot.Recorder {
	if s == nil {
		return nil
	}
	return s
}

// Main runs `flipbot appliance [flags]` (and plain `flipbot` in a gokrazy
// build): it reads the flags and environment, builds the real checker,
// player and indicators, and runs until ctx ends. It returns the exit code.
// getenv is os.Getenv outside tests.
func Main(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	usageCode := 2
	if OnDevice {
		// A wrong flag is baked into the image: restarting cannot fix it.
		usageCode = ExitStayStopped
	}
	flags, err := config.ParseAppliance(args, config.ApplianceDefaults{OnDevice: OnDevice, Perm: DevicePerm, Port: DefaultPort, Drain: DefaultDrain}, getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "flipbot appliance: %v\n", err)
		return usageCode
	}
	dir, perm, port, pwFile, api, streamURL, egaroucid, leds, drain := &flags.Dir, &flags.Perm, &flags.Port, &flags.PasswordFile, &flags.API, &flags.StreamURL, &flags.Egaroucid, &flags.Indicators, &flags.Drain
	// Every engine (the bot's, the analysis's) shares one budget of stderr
	// lines, so that a flooding engine cannot turn gokrazy's 100-line log
	// over by restarting.
	log := proc.WithStderrBudget(slog.New(slog.NewTextHandler(stderr, nil)), nil)

	files := DevicePasswordFiles()
	if !OnDevice {
		files = nil
		if *pwFile == "" {
			p, err := ensurePCPassword(filepath.Join(*dir, "admin-password.txt"), log)
			if err != nil {
				log.Error("admin password", "err", err)
			} else {
				files = []string{p}
			}
		}
	}
	if *pwFile != "" {
		files = append([]string{ownerNamedFile(*pwFile)}, files...)
	}
	egaroucidOK, egaroucidPath := false, ""
	if *egaroucid != "" {
		if fi, err := os.Stat(*egaroucid); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			egaroucidOK, egaroucidPath = true, *egaroucid
		} else {
			log.Warn("Egaroucid not usable; offering the built-in engine only", "path", *egaroucid)
		}
	}
	var games *record.Store
	if flags.GamesDir != "" {
		games = record.Open(record.Options{Dir: flags.GamesDir, Logger: log})
	}
	// The bot's engine and the background analysis share the evaluations.
	evals := sync.OnceValue(func() *eval.Set { return builtinEvals(log) })
	cfg := Config{
		Dir: *dir, Perm: *perm, Port: *port, PasswordFiles: files,
		EnvToken:           flags.EnvToken,
		Games:              games,
		Analysis:           newAnalysisEngine(evals),
		EgaroucidInstalled: egaroucidOK,
		Checker:            FlipSightChecker{APIURL: *api, StreamURL: *streamURL},
		Player:             newBotPlayer(botPlayerConfig{APIURL: *api, StreamURL: *streamURL, Egaroucid: egaroucidPath, CPU: DefaultPlatform().Model(), Logger: log, Records: recorder(games), Evals: evals, Drain: *drain}),
		Logger:             log,
		Drain:              *drain,
	}
	switch flags.BootPartition {
	case "", "none":
	case "auto":
		cfg.CardToken = store.BootPartition{}
	default:
		cfg.CardToken = store.BootPartition{Path: flags.BootPartition}
	}
	if OnDevice && *port > 0 {
		// flipbot.local and the page over DNS-SD; on a PC the pages are on
		// loopback only, and the PC answers for its own name. Stopped when
		// Main returns, however Run ended.
		mctx, stopMDNS := context.WithCancel(ctx)
		wait := serveMDNS(mctx, *port, DefaultPlatform().PageHosts, log)
		defer func() { stopMDNS(); wait() }()
	}
	if *leds {
		ind := NewGPIOIndicators(log)
		defer ind.Close()
		cfg.Indicators = ind
	}
	return Run(ctx, cfg)
}

// ownerNamedFile returns the file the owner named on the command line with
// its symbolic links resolved, once, here: the reads that follow (at every
// admin request) follow no link (store.ReadFileLimit), but a link the
// owner made on purpose should work. A path that does not resolve (no
// file yet) is returned as it is.
func ownerNamedFile(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return path
}

// ensurePCPassword returns path, creating it (0600) with a random password
// when missing, so that a PC run has an admin password the owner can read
// from the file. The password itself is never logged.
func ensurePCPassword(path string, log *slog.Logger) (string, error) {
	if _, err := os.Stat(path); err == nil {
		return path, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("admin password file %s: %w", path, err)
	}
	pw, err := randomPassword()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("admin password file: %w", err)
	}
	if err := (store.FS{}).WriteFile(path, []byte(pw+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("admin password file: %w", err)
	}
	log.Info("admin password created (user gokrazy); read it from the file", "file", path)
	return path, nil
}

// randomPassword returns a password for a PC run without one configured.
func randomPassword() (string, error) {
	const letters = "abcdefghijkmnpqrstuvwxyz23456789"
	b := make([]byte, 16)
	for i := range b {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(letters))))
		if err != nil {
			return "", fmt.Errorf("random password: %w", err)
		}
		b[i] = letters[n.Int64()]
	}
	return string(b), nil
}
