package state

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"flipbot.dev/flipbot/bot/record"
)

// Phase is what the runtime itself is doing, one input of [Status.Kind].
type Phase int

// Phases of the runtime.
const (
	// PhaseStarting: before the clock check.
	PhaseStarting Phase = iota
	// PhaseWaitingClock: blocked in WaitForClock.
	PhaseWaitingClock
	// PhaseRunning: serving pages; the bot runs whenever a token is in effect.
	PhaseRunning
	// PhaseStopping: draining after SIGTERM.
	PhaseStopping
)

// TokenSource says where the token in effect comes from.
type TokenSource string

// Token sources.
const (
	TokenNone   TokenSource = "none"
	TokenEnv    TokenSource = "env"    // FS_BOT_TOKEN, wins over the stored token
	TokenStored TokenSource = "stored" // the token file on /perm
	TokenMemory TokenSource = "memory" // entered on the page but /perm could not keep it
)

// Status is everything the appliance shows: one snapshot, copied out of the
// [Hub]. Its JSON form, with the JSON names of its parts, is /api/status,
// the appliance's contract with its readers (the golden files of the
// appliance's tests hold it); it never holds the token or the pairing
// code.
type Status struct {
	Kind      Kind        `json:"state"`
	StateText string      `json:"state_text"`
	Phase     Phase       `json:"-"`
	Token     TokenSource `json:"token_source"`
	// Report is the bot's part, written by the runner alone; its fields
	// are the Status's own in Go and in the JSON.
	Report
	Engine  EngineSettings `json:"engine"`
	Device  Device         `json:"device"`
	Storage Storage        `json:"storage"`
	// Card is the token file on the SD card's boot partition, if any.
	Card CardToken `json:"card_token_file"`
	// Indicators is what the LEDs and display settings found.
	Indicators Indicators `json:"indicators"`
	// Games is the state of the game records (record.Store).
	Games   GameStore `json:"games"`
	Updated time.Time `json:"updated"`

	// PairingCode is shown on the display and in the log while setup is
	// needed; never in /api/status.
	PairingCode string `json:"-"`
}

// EngineSettings is the engine part of the settings in effect, as the
// status shows it (a summary of the settings, not an engine).
type EngineSettings struct {
	MaxMatches int               `json:"max_matches"`
	Threads    int               `json:"threads"`
	HashMB     int               `json:"hash_mb"`
	PerMode    map[string]string `json:"engine_per_mode"`
}

// Device is the facts about the machine.
type Device struct {
	Model      string    `json:"model"`
	Hostname   string    `json:"hostname"`
	Addresses  []string  `json:"addresses"`
	PageURLs   []string  `json:"page_urls"`
	Version    string    `json:"version"`
	Started    time.Time `json:"started"`
	UptimeSec  int64     `json:"uptime_s"`
	SysUptimeS int64     `json:"system_uptime_s,omitempty"`
	// NetworkUp: the device has an address other than loopback and
	// link-local, and a default route (where the system shows its routes).
	// With it, a bot that cannot reach FlipSight reads "FlipSight
	// unreachable", not "No network".
	NetworkUp bool `json:"network_up"`
}

// Indicators is what the appliance found of the LEDs and the display its
// settings name, and why not what it did not find.
type Indicators struct {
	// LEDs are the LEDs driven, such as "green GPIO17".
	LEDs []string `json:"leds"`
	// Display is the display driven, such as "ssd1306 128x64 @0x3c", or "".
	Display string `json:"display"`
	// Missing says why each thing not found was not, such as "display:
	// no I²C bus (…)" or "display: no device at 0x3c, 0x3d, 0x27, 0x3f on
	// I2C1".
	Missing []string `json:"missing"`
}

// GameStore is the state of the game records (bot/record's Store) as the
// appliance shows it, in /api/status and /api/games: record.StoreStatus
// with the JSON names of the appliance's contract ([GameStoreOf]); its
// fields are record.StoreStatus's, in the same order.
type GameStore struct {
	Dir      string `json:"dir"`
	OK       bool   `json:"ok"`
	Problem  string `json:"problem,omitempty"`
	Games    int    `json:"games"`
	Unsaved  int    `json:"unsaved"`
	Skipped  int    `json:"skipped_lines"`
	Bytes    int64  `json:"bytes"`
	CapBytes int64  `json:"cap_bytes"`
	Files    int    `json:"files"`
	// Analysed counts the games with an analysis; AnalysisBytes is the
	// size of their files (part of Bytes).
	Analysed      int   `json:"analysed"`
	AnalysisBytes int64 `json:"analysis_bytes"`
}

// GameStoreOf is the appliance's form of a store's status: a conversion,
// so the compiler keeps the two types' fields alike.
func GameStoreOf(s record.StoreStatus) GameStore { return GameStore(s) }

// Storage describes /perm.
type Storage struct {
	Path      string `json:"path"`
	OK        bool   `json:"ok"`
	Problem   string `json:"problem,omitempty"`
	FreeBytes uint64 `json:"free_bytes"`
}

// deriveKind decides the one state from the facts. The order is the order
// of what the owner must act on first.
func (s *Status) deriveKind() Kind {
	switch {
	case s.Phase == PhaseStopping:
		return KindStopping
	case s.Phase == PhaseStarting:
		return KindStarting
	case s.Phase == PhaseWaitingClock:
		return KindWaitingClock
	case s.Token == TokenNone && !s.Storage.OK:
		return KindStorageMissing
	case s.Token == TokenNone:
		return KindSetupNeeded
	case s.Rejected:
		return KindTokenRejected
	case s.EngineFailed:
		return KindEngineFailed
	case s.Online && len(s.Matches) > 0:
		return KindInGame
	case s.Online:
		return KindOnlineIdle
	case s.NetworkDown:
		return KindNoNetwork
	default:
		return KindConnecting
	}
}

// clone returns a deep copy, so that readers never share slices with the Hub.
func (s Status) clone() Status {
	c := s
	c.Matches = make([]Match, len(s.Matches))
	for i, m := range s.Matches {
		m.Legs = slices.Clone(m.Legs)
		for j := range m.Legs {
			m.Legs[j].Board = slices.Clone(m.Legs[j].Board)
			m.Legs[j].Blocked = slices.Clone(m.Legs[j].Blocked)
		}
		m.Moves.Fallbacks = maps.Clone(m.Moves.Fallbacks)
		c.Matches[i] = m
	}
	c.Results = slices.Clone(s.Results)
	if c.Results == nil {
		c.Results = []Result{}
	}
	for i := range c.Results {
		c.Results[i].Games = slices.Clone(c.Results[i].Games)
		c.Results[i].Moves.Fallbacks = maps.Clone(c.Results[i].Moves.Fallbacks)
	}
	c.Device.Addresses = slices.Clone(s.Device.Addresses)
	c.Device.PageURLs = slices.Clone(s.Device.PageURLs)
	c.Indicators.LEDs = slices.Clone(s.Indicators.LEDs)
	c.Indicators.Missing = slices.Clone(s.Indicators.Missing)
	c.Engine.PerMode = maps.Clone(s.Engine.PerMode)
	return c
}

// JSON encodes the snapshot as /api/status does.
func (s Status) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode status: %w", err)
	}
	return b, nil
}

// CardOutcome says what became of a token file on the card.
type CardOutcome string

// The outcomes.
const (
	CardUsed      CardOutcome = "used"      // checked with FlipSight and saved to /perm
	CardSame      CardOutcome = "same"      // the stored token is the same
	CardOlder     CardOutcome = "older"     // a different token, but not newer than the stored one: ignored
	CardEnv       CardOutcome = "env"       // FS_BOT_TOKEN is in effect: ignored
	CardRefused   CardOutcome = "refused"   // FlipSight refused it
	CardInvalid   CardOutcome = "invalid"   // not a well-formed token file
	CardUnchecked CardOutcome = "unchecked" // FlipSight could not be reached; retried
)

// CardToken is the status of the card's token file.
type CardToken struct {
	// Present: the boot partition holds the token file
	// (flipbot-token.txt).
	Present bool        `json:"present"`
	Outcome CardOutcome `json:"outcome,omitempty"`
	// Message explains the outcome to people (never holds the token).
	Message string `json:"message,omitempty"`
}

// Problem is the message when the file could not be used, else "".
func (c CardToken) Problem() string {
	switch c.Outcome {
	case CardRefused, CardInvalid, CardUnchecked:
		return c.Message
	}
	return ""
}
