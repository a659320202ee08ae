// Package instance derives the gokrazy instances that flipbot's Makefile
// builds from the one committed Raspberry Pi instance (gokrazy/flipbot), so
// that flipbot's command-line flags have one source of truth:
//
//   - the Pi instance itself, optionally with an Egaroucid binary staged
//     into the image;
//   - the VM variant for qemu-system-aarch64 (kernel.arm64, no Pi firmware
//     or EEPROM, serial console on ttyAMA0, no GPIO indicators);
//   - the offline variant of either (the Pi one for the emulated Pi 3B),
//     which also runs flipbot-arena on the device's loopback with a
//     built-in opponent, points flipbot at it, and lets gokrazy's ntp ask
//     the emulator's host for the time.
//
// A derived instance is a new directory holding config.json and a copy of
// the source's builddir (the pinned go.mod and go.sum of every package),
// with relative replace directives rewritten to absolute paths so that the
// copy builds from wherever it is written.
//
// One file, instance.go ([Derive], [Options], [FlipbotFlags]). It imports
// nothing of the module: it knows flipbot by its packages' paths and its
// flags, never by its code.
package instance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
)

// Import paths of flipbot's packages in the instance.
const (
	FlipbotPackage = "flipbot.dev/flipbot/cmd/flipbot"
	ArenaPackage   = "flipbot.dev/flipbot/cmd/flipbot-arena"
)

// NTPPackage is gokrazy's time client, one of the packages gok adds to
// every instance.
const NTPPackage = "github.com/gokrazy/gokrazy/cmd/ntp"

// EmulatorHost is the host as a guest of QEMU's user network sees it
// (QEMU's documentation, "Network emulation": the host is 10.0.2.2).
const EmulatorHost = "10.0.2.2"

// gokrazyNTPServers are the servers gokrazy's ntp asks by default
// (cmd/ntp/ntp.go in github.com/gokrazy/gokrazy).
var gokrazyNTPServers = []string{"0.gokrazy.pool.ntp.org", "1.gokrazy.pool.ntp.org", "2.gokrazy.pool.ntp.org", "3.gokrazy.pool.ntp.org"}

// Offline arena settings: flipbot-arena listens on the device's loopback
// only, and OfflineToken is the bot token it accepts for flipbot. It is a
// demonstration value, not a secret: the offline arena is reachable only
// from inside the device.
const (
	OfflineArenaAddr = "127.0.0.1:8088"
	OfflineToken     = "fsbm_offline_demo_token_0001"
	OfflineBotName   = "flipbot"
	OfflineOpponent  = "house"
	OfflineLevel     = 4
)

// EgaroucidDir is where a staged Egaroucid (binary and resources/) lands in
// the root file system, and EgaroucidBinary the binary's name there.
const (
	EgaroucidDir    = "/usr/local/egaroucid"
	EgaroucidBinary = "Egaroucid_for_Console"
)

// Options says which variant to derive.
type Options struct {
	// VM selects the qemu variant.
	VM bool
	// Offline adds flipbot-arena on loopback, and the emulator's host
	// (EmulatorHost) to gokrazy's time servers.
	Offline bool
	// UpdateHost, when set, is the instance's Update.Hostname: where
	// `gok update` sends the new build (e.g. localhost:18080 for a VM).
	UpdateHost string
	// Egaroucid, when set, is a staged Egaroucid directory (a binary named
	// EgaroucidBinary and its resources/), put into the image at
	// EgaroucidDir and offered to flipbot with -egaroucid.
	Egaroucid string
	// ExtraFlags are appended to flipbot's flags (a later flag wins).
	ExtraFlags []string
}

// Derive writes the instance for opts into dst, from the source instance
// directory src (gokrazy/flipbot). dst is created or replaced.
func Derive(src, dst string, opts Options) error {
	raw, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		return fmt.Errorf("source instance: %w", err)
	}
	cfg, err := Transform(raw, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(src, "config.json"), err)
	}
	if err := os.RemoveAll(dst); err != nil {
		return fmt.Errorf("clear %s: %w", dst, err)
	}
	if err := copyBuilddir(filepath.Join(src, "builddir"), filepath.Join(dst, "builddir")); err != nil {
		return err
	}
	if opts.Egaroucid != "" {
		if err := stageEgaroucid(opts.Egaroucid, filepath.Join(dst, "egaroucid")); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dst, "config.json"), cfg, 0o644); err != nil {
		return fmt.Errorf("write instance: %w", err)
	}
	return nil
}

// Transform returns the config.json of the variant opts of the instance
// whose config.json is raw. Unknown fields are kept.
func Transform(raw []byte, opts Options) ([]byte, error) {
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if cfg == nil {
		return nil, errors.New("parse: not a JSON object")
	}
	if !slices.Contains(stringList(cfg["Packages"]), FlipbotPackage) {
		return nil, fmt.Errorf("the instance does not hold %s", FlipbotPackage)
	}
	pkgCfg := object(cfg, "PackageConfig")
	fb := object(pkgCfg, FlipbotPackage)
	flags := stringList(fb["CommandLineFlags"])

	if opts.VM {
		cfg["KernelPackage"] = "github.com/gokrazy/kernel.arm64"
		cfg["FirmwarePackage"] = ""
		cfg["EEPROMPackage"] = ""
		cfg["SerialConsole"] = "ttyAMA0,115200"
		delete(cfg, "BootloaderExtraLines")
		flags = append(flags, "-indicators=false")
	}
	if opts.Offline {
		cfg["Packages"] = appendUnique(stringList(cfg["Packages"]), ArenaPackage)
		arena := object(pkgCfg, ArenaPackage)
		arena["CommandLineFlags"] = []string{
			"serve",
			"--listen=" + OfflineArenaAddr,
			fmt.Sprintf("--bot=%s:%s:all", OfflineBotName, OfflineToken),
			fmt.Sprintf("--builtin=%s:%d:all", OfflineOpponent, OfflineLevel),
			"--auto-match",
		}
		flags = append(flags, "-api=http://"+OfflineArenaAddr+"/flipsight/bot_match_api.php")
		// gokrazy's ntp takes its servers as arguments (and then only
		// those): the emulator's host first, where flipbot-image's time
		// server answers, and gokrazy's own pool for a device on a network.
		object(pkgCfg, NTPPackage)["CommandLineFlags"] = append([]string{EmulatorHost}, gokrazyNTPServers...)
	}
	if opts.Egaroucid != "" {
		files := object(fb, "ExtraFilePaths")
		files[EgaroucidDir] = "egaroucid"
		flags = append(flags, "-egaroucid="+EgaroucidDir+"/"+EgaroucidBinary)
	}
	flags = append(flags, opts.ExtraFlags...)
	fb["CommandLineFlags"] = flags
	if opts.UpdateHost != "" {
		object(cfg, "Update")["Hostname"] = opts.UpdateHost
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(cfg); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return b.Bytes(), nil
}

// object returns m[key] as an object, creating it when absent.
func object(m map[string]any, key string) map[string]any {
	if o, ok := m[key].(map[string]any); ok {
		return o
	}
	o := map[string]any{}
	m[key] = o
	return o
}

// stringList returns v as a list of strings (non-strings are dropped).
func stringList(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, e := range l {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	if l, ok := v.([]string); ok {
		out = append(out, l...)
	}
	return out
}

func appendUnique(l []string, s string) []string {
	if slices.Contains(l, s) {
		return l
	}
	return append(l, s)
}

var replaceRE = regexp.MustCompile(`(?m)^(replace\s+\S+(?:\s+\S+)?\s+=>\s+)(\.\S*)\s*$`)

// copyBuilddir copies the go.mod and go.sum files under src to dst,
// rewriting relative replace paths to absolute ones.
func copyBuilddir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("builddir: %w", err)
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("builddir: %w", err)
		}
		if d.Name() == "go.mod" {
			dir := filepath.Dir(path)
			b = replaceRE.ReplaceAllFunc(b, func(m []byte) []byte {
				sub := replaceRE.FindSubmatch(m)
				abs, err := filepath.Abs(filepath.Join(dir, string(sub[2])))
				if err != nil {
					return m
				}
				return append(append([]byte{}, sub[1]...), abs...)
			})
		}
		return os.WriteFile(out, b, 0o644)
	})
}

// stageEgaroucid copies a staged Egaroucid directory into the instance: the
// binary and its resources directory, nothing else.
func stageEgaroucid(src, dst string) error {
	bin := filepath.Join(src, EgaroucidBinary)
	fi, err := os.Stat(bin)
	if err != nil {
		return fmt.Errorf("egaroucid: %w (run make egaroucid EGAROUCID_SRC=…)", err)
	}
	if fi.Mode()&0o111 == 0 {
		return fmt.Errorf("egaroucid: %s is not executable", bin)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("egaroucid: %w", err)
	}
	if err := copyFile(bin, filepath.Join(dst, EgaroucidBinary), 0o755); err != nil {
		return err
	}
	res := filepath.Join(src, "resources")
	return filepath.WalkDir(res, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("egaroucid resources: %w", err)
		}
		rel, _ := filepath.Rel(src, path)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return copyFile(path, out, 0o644)
	})
}

func copyFile(src, dst string, mode os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("stage: %w", err)
	}
	if err := os.WriteFile(dst, b, mode); err != nil {
		return fmt.Errorf("stage: %w", err)
	}
	return nil
}

// FlipbotFlags returns flipbot's command-line flags in the config.json raw.
func FlipbotFlags(raw []byte) ([]string, error) {
	var cfg struct {
		PackageConfig map[string]struct {
			CommandLineFlags []string
		}
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	return cfg.PackageConfig[FlipbotPackage].CommandLineFlags, nil
}
