package appliance

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

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
	fl := flag.NewFlagSet("flipbot appliance", flag.ContinueOnError)
	fl.SetOutput(stderr)
	defDir, defPerm := getenv("HOME"), DevicePerm
	if !OnDevice {
		defPerm = ""
		if d, err := os.UserConfigDir(); err == nil {
			defDir = filepath.Join(d, "flipbot")
		}
	}
	var (
		dir       = fl.String("dir", defDir, "directory keeping the token and settings ($HOME = /perm/home/flipbot on the device)")
		perm      = fl.String("perm", defPerm, "persistent file system shown on the status page (default: the -dir directory off the device)")
		port      = fl.Int("port", DefaultPort, "port of the setup and status pages (gokrazy's web UI owns :80)")
		pwFile    = fl.String("password-file", "", "admin password file (default on the device: /perm/gokr-pw.txt, /etc/gokr-pw.txt; on a PC: DIR/admin-password.txt, created when missing)")
		api       = fl.String("api", "", "FlipSight API URL (default the real service; http://127.0.0.1:PORT/flipsight/bot_match_api.php for a local arena)")
		streamURL = fl.String("stream-url", "", "FlipSight stream URL (default derived from -api)")
		egaroucid = fl.String("egaroucid", "", "path of an Egaroucid console binary, offered for std on the settings page")
		leds      = fl.Bool("indicators", OnDevice, "drive the LEDs and the display (GPIO/I2C)")
		drain     = fl.Duration("drain", DefaultDrain, "longest wait for moves in flight on SIGTERM")
		card      = fl.String("boot-partition", defCardFlag(), "FAT file system looked at for "+BootTokenFileName+" at start: auto (the boot disk's partition 1), a device or image path, or none")
	)
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return usageCode
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "flipbot appliance: unexpected argument %q\n", fl.Arg(0))
		return usageCode
	}
	if *dir == "" {
		fmt.Fprintln(stderr, "flipbot appliance: no -dir and no $HOME")
		return usageCode
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))

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
		files = append([]string{*pwFile}, files...)
	}
	egaroucidOK, egaroucidPath := false, ""
	if *egaroucid != "" {
		if fi, err := os.Stat(*egaroucid); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			egaroucidOK, egaroucidPath = true, *egaroucid
		} else {
			log.Warn("Egaroucid not usable; offering the built-in engine only", "path", *egaroucid)
		}
	}
	cfg := Config{
		Dir: *dir, Perm: *perm, Port: *port, PasswordFiles: files,
		EnvToken:           getenv("FS_BOT_TOKEN"),
		EgaroucidInstalled: egaroucidOK,
		Checker:            FlipSightChecker{APIURL: *api, StreamURL: *streamURL},
		Player:             newBotPlayer(botPlayerConfig{APIURL: *api, StreamURL: *streamURL, Egaroucid: egaroucidPath, CPU: DefaultPlatform().Model(), Logger: log}),
		Logger:             log,
		Drain:              *drain,
	}
	switch *card {
	case "", "none":
	case "auto":
		cfg.CardToken = BootPartition{}
	default:
		cfg.CardToken = BootPartition{Path: *card}
	}
	if *leds {
		ind := NewGPIOIndicators(ctx, log)
		defer ind.Close()
		cfg.Indicators = ind
	}
	return Run(ctx, cfg)
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
	if err := osFileOps().writeFileAtomic(path, []byte(pw+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("admin password file: %w", err)
	}
	log.Info("admin password created (user gokrazy); read it from the file", "file", path)
	return path, nil
}

// defCardFlag is -boot-partition's default: the boot disk on the device,
// none on a PC.
func defCardFlag() string {
	if OnDevice {
		return "auto"
	}
	return "none"
}
