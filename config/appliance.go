package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"flipbot.dev/flipbot/flipsight"
)

// ApplianceDefaults are the defaults of the appliance's flags that depend
// on where it runs.
type ApplianceDefaults struct {
	// OnDevice: running under gokrazy (the appliance build).
	OnDevice bool
	// Perm is the persistent file system shown on the device (/perm).
	Perm string
	// Port of the pages.
	Port int
	// Drain is the longest wait for the running matches on SIGTERM.
	Drain time.Duration
}

// Appliance holds the settings of `flipbot appliance` (and of plain
// `flipbot` in a gokrazy build).
type Appliance struct {
	// Dir keeps the token and the settings (-dir): $HOME on the device,
	// the configuration directory on a PC.
	Dir string
	// Perm is the file system shown on the status page (-perm).
	Perm string
	// Port of the setup and status pages (-port; -1 picks a free one).
	Port int
	// PasswordFile is the admin password file (-password-file; "" = the
	// defaults).
	PasswordFile string
	// API and StreamURL are FlipSight's URLs (-api, -stream-url).
	API, StreamURL string
	// Egaroucid is an Egaroucid console binary (-egaroucid).
	Egaroucid string
	// Indicators drives the LEDs and the display (-indicators).
	Indicators bool
	// Drain bounds the wait for the running matches on SIGTERM (-drain).
	Drain time.Duration
	// GamesDir keeps the game records (-games-dir); NoRecords (-no-records)
	// keeps none.
	GamesDir  string
	NoRecords bool
	// BootPartition is the FAT file system looked at for the card's token
	// file at start (-boot-partition): "auto" (the boot disk's partition 1,
	// the default on the device), a device or image path, or "none" (the
	// default on a PC).
	BootPartition string
	// EnvToken is FS_BOT_TOKEN, which wins over the stored token ("" when
	// unset; checked by the appliance, not here).
	EnvToken string
}

// ParseAppliance parses the appliance's arguments with getenv for the
// environment. It returns flag.ErrHelp for -h, and an error for bad flags
// or a missing directory.
func ParseAppliance(args []string, def ApplianceDefaults, getenv func(string) string, usage io.Writer) (Appliance, error) {
	var a Appliance
	fs := flag.NewFlagSet("flipbot appliance", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.Usage = func() {
		fmt.Fprint(usage, "usage: flipbot appliance [flags]\n\nRun as the Raspberry Pi appliance (on a PC too): the setup and status pages,\n"+
			"the bot, the display and LEDs. It takes no other arguments.\n\nFlags of flipbot appliance:\n")
		fs.PrintDefaults()
	}
	defDir, defPerm := getenv(HomeEnv), def.Perm
	if !def.OnDevice {
		defPerm = ""
		defDir = ConfigDir(getenv)
	}
	fs.StringVar(&a.Dir, "dir", defDir, "directory keeping the token and settings ($HOME = /perm/home/flipbot on the device)")
	fs.StringVar(&a.Perm, "perm", defPerm, "persistent file system shown on the status page (default: the -dir directory off the device)")
	fs.IntVar(&a.Port, "port", def.Port, "port of the setup and status pages (gokrazy's web UI owns :80)")
	fs.StringVar(&a.PasswordFile, "password-file", "", "admin password file (default on the device: /perm/gokr-pw.txt, /etc/gokr-pw.txt; on a PC: DIR/admin-password.txt, created when missing)")
	fs.StringVar(&a.API, "api", "", "FlipSight API URL (default the real service; http://127.0.0.1:PORT/flipsight/bot_match_api.php for a local arena)")
	fs.StringVar(&a.StreamURL, "stream-url", "", "FlipSight stream URL (default derived from -api)")
	fs.StringVar(&a.Egaroucid, "egaroucid", "", "path of an Egaroucid console binary, offered for std on the settings page")
	fs.BoolVar(&a.Indicators, "indicators", def.OnDevice, "drive the LEDs and the display (GPIO/I2C)")
	fs.DurationVar(&a.Drain, "drain", def.Drain, "longest wait for the running matches to end on SIGTERM (then the moves in flight are finished, at most 8 s)")
	fs.StringVar(&a.GamesDir, "games-dir", "", "directory of the game records (default $HOME/games on the device, the data directory's games/ on a PC)")
	fs.BoolVar(&a.NoRecords, "no-records", false, "keep no game records")
	defCard := "none"
	if def.OnDevice {
		defCard = "auto"
	}
	fs.StringVar(&a.BootPartition, "boot-partition", defCard, "FAT file system looked at for flipbot-token.txt at start: auto (the boot disk's partition 1), a device or image path, or none")
	if err := fs.Parse(args); err != nil {
		return Appliance{}, err
	}
	if fs.NArg() > 0 {
		return Appliance{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if a.Dir == "" {
		return Appliance{}, fmt.Errorf("no -dir and no $%s", HomeEnv)
	}
	if a.Port < -1 || a.Port > 65535 { // -1: any free port (tests)
		return Appliance{}, fmt.Errorf("-port %d is not a port", a.Port)
	}
	if a.Drain < 0 {
		return Appliance{}, errors.New("-drain must not be negative")
	}
	if a.API != "" {
		if _, err := flipsight.CheckURL(a.API); err != nil {
			return Appliance{}, fmt.Errorf("-api: %w", err)
		}
	}
	if a.GamesDir == "" && !a.NoRecords {
		a.GamesDir = DefaultGamesDir(getenv, def.OnDevice)
		if a.GamesDir == "" {
			a.GamesDir = filepath.Join(a.Dir, GamesDirName)
		}
	}
	if a.NoRecords {
		a.GamesDir = ""
	}
	a.EnvToken = getenv(TokenEnv)
	return a, nil
}
