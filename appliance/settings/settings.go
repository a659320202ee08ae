package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/gpio"
)

// FileName is the settings' file name in the store directory.
const FileName = "settings.json"

// Bounds of Settings.GamesMB.
const (
	DefaultGamesMB = 50
	MinGamesMB     = 1
	MaxGamesMB     = 4096
)

// Modes returns FlipSight's game modes, in the order the settings page
// shows them.
func Modes() []string { return []string{"std", "anti", "grand", "octagon", "reversi"} }

// Engine names for Settings.Engines.
const (
	EngineBuiltin   = "builtin"
	EngineEgaroucid = "egaroucid" // std only, where installed
	EngineOff       = "off"       // do not play this mode
)

// DisplayTypes returns the display types the settings accept: auto (probe
// the I2C bus), none, and the gpio package's concrete types.
func DisplayTypes() []string {
	out := []string{string(gpio.DisplayAuto), string(gpio.DisplayNone)}
	for _, d := range gpio.Displays() {
		out = append(out, string(d))
	}
	return out
}

// Limits of the settings.
const (
	MaxMatchesLimit = 8
	MaxHashMB       = 4096
)

// Settings are the owner's choices, kept as JSON next to the token and
// applied without a reboot where possible (the engine settings when no match
// runs, the indicators at once).
type Settings struct {
	MaxMatches int               `json:"max_matches"`
	Threads    int               `json:"threads"`
	HashMB     int               `json:"hash_mb"`
	Engines    map[string]string `json:"engines"` // game mode → engine name
	LEDs       LEDPins           `json:"leds"`
	Display    string            `json:"display"`
	I2CBus     string            `json:"i2c_bus"`
	// GamesMB caps the game records on disk, in MB (oldest deleted first).
	GamesMB int `json:"games_mb"`
}

// LEDPins names the GPIO lines of the three LEDs ("GPIO17"; "none" = not
// fitted; "" = the default pin).
type LEDPins struct {
	Online string `json:"online"`
	Game   string `json:"game"`
	Error  string `json:"error"`
}

// Default returns the settings of a new device: two matches, all
// cores, 64 MiB hash, the built-in engine everywhere, the LEDs on GPIO17,
// 27 and 22, a display found by probing I2C bus 1.
func Default() Settings {
	s := Settings{
		MaxMatches: 2,
		Threads:    runtime.NumCPU(),
		HashMB:     64,
		Engines:    map[string]string{},
		LEDs:       LEDPins{Online: defaultOnlinePin, Game: defaultGamePin, Error: defaultErrorPin},
		Display:    string(gpio.DisplayAuto),
		I2CBus:     "1",
		GamesMB:    DefaultGamesMB,
	}
	for _, m := range Modes() {
		s.Engines[m] = EngineBuiltin
	}
	return s
}

var pinName = regexp.MustCompile(`^GPIO([0-9]{1,2})$`)

// Default LED pins, those of gpio.Config: "" in LEDPins means these.
const (
	defaultOnlinePin = "GPIO17"
	defaultGamePin   = "GPIO27"
	defaultErrorPin  = "GPIO22"
)

// normalizePin returns the canonical name of an LED pin: def for "",
// "none" in any case, "GPIO5" for "gpio05" or " GPIO5 ", so that two
// names of one line compare equal. Anything else is returned trimmed, for
// Validate to refuse.
func normalizePin(p, def string) string {
	p = strings.ToUpper(strings.TrimSpace(p))
	switch p {
	case "":
		return def
	case "NONE":
		return "none"
	}
	if m := pinName.FindStringSubmatch(p); m != nil {
		n, _ := strconv.Atoi(m[1])
		return "GPIO" + strconv.Itoa(n)
	}
	return p
}

// Validate checks every field; egaroucid says whether Egaroucid is installed.
func (s Settings) Validate(egaroucid bool) error {
	var errs []error
	if s.MaxMatches < 1 || s.MaxMatches > MaxMatchesLimit {
		errs = append(errs, fmt.Errorf("max matches must be 1..%d, not %d", MaxMatchesLimit, s.MaxMatches))
	}
	if maxT := 4 * runtime.NumCPU(); s.Threads < 1 || s.Threads > maxT {
		errs = append(errs, fmt.Errorf("threads must be 1..%d, not %d", maxT, s.Threads))
	}
	if s.GamesMB < MinGamesMB || s.GamesMB > MaxGamesMB {
		errs = append(errs, fmt.Errorf("game records cap must be %d..%d MB, not %d", MinGamesMB, MaxGamesMB, s.GamesMB))
	}
	if s.HashMB < 1 || s.HashMB > MaxHashMB {
		errs = append(errs, fmt.Errorf("hash size must be 1..%d MB, not %d", MaxHashMB, s.HashMB))
	}
	playable := 0
	for m, e := range s.Engines {
		if !slices.Contains(Modes(), m) {
			errs = append(errs, fmt.Errorf("unknown game mode %q", m))
			continue
		}
		switch e {
		case EngineBuiltin:
		case EngineOff:
			continue
		case EngineEgaroucid:
			if m != "std" {
				errs = append(errs, fmt.Errorf("std only with Egaroucid, not %s", m))
			} else if !egaroucid {
				errs = append(errs, errors.New("no Egaroucid: it is not installed on this device"))
			}
		default:
			errs = append(errs, fmt.Errorf("unknown engine %q for %s", e, m))
		}
		playable++
	}
	if playable == 0 {
		errs = append(errs, errors.New("at least one game mode must be played"))
	}
	used := map[string]string{}
	for _, p := range []struct{ what, pin string }{
		{"online LED", normalizePin(s.LEDs.Online, defaultOnlinePin)},
		{"game LED", normalizePin(s.LEDs.Game, defaultGamePin)},
		{"error LED", normalizePin(s.LEDs.Error, defaultErrorPin)},
	} {
		// Compared after normalising: "" is the default pin, GPIO05 is GPIO5.
		if p.pin == "none" {
			continue
		}
		m := pinName.FindStringSubmatch(p.pin)
		if m == nil {
			errs = append(errs, fmt.Errorf("%s pin %q: write it as GPIO17", p.what, p.pin))
			continue
		}
		if n, _ := strconv.Atoi(m[1]); n > 27 {
			errs = append(errs, fmt.Errorf("%s pin %q: the header has GPIO0..GPIO27", p.what, p.pin))
			continue
		}
		if other, ok := used[p.pin]; ok {
			errs = append(errs, fmt.Errorf("%s and %s share %s", other, p.what, p.pin))
		}
		used[p.pin] = p.what
	}
	if !slices.Contains(DisplayTypes(), s.Display) {
		errs = append(errs, fmt.Errorf("unknown display type %q", s.Display))
	}
	if s.I2CBus != "" {
		if n, err := strconv.Atoi(s.I2CBus); err != nil || n < 0 || n > 99 {
			errs = append(errs, fmt.Errorf("I2C bus %q: a number such as 1", s.I2CBus))
		}
	}
	return errors.Join(errs...)
}

// EngineSettings returns the engine part of s, as the status shows it.
func (s Settings) EngineSettings() state.EngineSettings {
	e := state.EngineSettings{MaxMatches: s.MaxMatches, Threads: s.Threads, HashMB: s.HashMB, PerMode: map[string]string{}}
	for k, v := range s.Engines {
		e.PerMode[k] = v
	}
	return e
}

// Parse decodes settings JSON; fields left out keep their defaults.
func Parse(b []byte) (Settings, error) {
	s := Default()
	if err := json.Unmarshal(b, &s); err != nil {
		return Default(), fmt.Errorf("parse settings: %w", err)
	}
	if s.Engines == nil {
		s.Engines = Default().Engines
	}
	return s, nil
}

// FromForm reads the settings page's form over base.
func FromForm(base Settings, f url.Values) (Settings, error) {
	s := base
	s.Engines = map[string]string{}
	for k, v := range base.Engines {
		s.Engines[k] = v
	}
	num := func(name string, dst *int) error {
		v := strings.TrimSpace(f.Get(name))
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s: %q is not a whole number", name, v)
		}
		*dst = n
		return nil
	}
	var errs []error
	errs = append(errs, num("max_matches", &s.MaxMatches), num("threads", &s.Threads), num("hash_mb", &s.HashMB))
	if _, ok := f["games_mb"]; ok {
		errs = append(errs, num("games_mb", &s.GamesMB))
	}
	for _, m := range Modes() {
		if v, ok := f["engine_"+m]; ok && len(v) > 0 {
			s.Engines[m] = v[0]
		}
	}
	// Stored canonical (GPIO5 for gpio05); empty stays empty: the default.
	pin := func(name string) string { return normalizePin(f.Get(name), "") }
	s.LEDs = LEDPins{Online: pin("led_online"), Game: pin("led_game"), Error: pin("led_error")}
	s.Display = f.Get("display")
	s.I2CBus = strings.TrimSpace(f.Get("i2c_bus"))
	return s, errors.Join(errs...)
}

// NewFile returns the file keeping the settings as JSON in dir
// (FileName), written atomically. Load gives the defaults when
// none are stored, and the defaults with an error when the file is damaged
// (the device still runs).
func NewFile(dir string) *store.File[Settings] {
	return store.NewFile(dir, store.Format[Settings]{
		Name: FileName, What: "settings",
		Encode: func(s Settings) ([]byte, error) {
			b, err := json.MarshalIndent(s, "", "  ")
			if err != nil {
				return nil, fmt.Errorf("encode settings: %w", err)
			}
			return append(b, '\n'), nil
		},
		Decode: Parse, Default: Default,
	})
}
