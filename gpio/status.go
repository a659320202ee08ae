package gpio

import (
	"fmt"
	"time"
)

// Kind is what the indicators show: it selects the LED patterns and the
// screen layout. It is this package's input, not a program's state: the
// caller maps its own states onto these.
type Kind int

// The situations the indicators can show, by their LEDs and screens. The
// zero value is Starting.
const (
	// Starting: the program is coming up (nothing known yet).
	Starting Kind = iota
	// WaitingClock: waiting for the system clock to be set (the Pi has no
	// RTC, TLS needs a clock).
	WaitingClock
	// SetupNeeded: no token stored; the owner must open the setup page
	// (Status.SetupURL) and enter the pairing code (Status.PairingCode).
	SetupNeeded
	// Connecting: a token is stored and the bot is reaching FlipSight.
	Connecting
	// OnlineIdle: connected and waiting for a match (Status.BotName,
	// Status.Rating).
	OnlineIdle
	// InGame: playing a match (Status.Game).
	InGame
	// TokenRejected: FlipSight refused the stored token; setup is needed
	// again.
	TokenRejected
	// NoNetwork: no network route or address.
	NoNetwork
	// StorageMissing: the storage for the token and settings is missing
	// or read-only, so they cannot be kept.
	StorageMissing
	// Stopping: the program is shutting down; the bot finishes the
	// running matches.
	Stopping
	// EngineFailed: the configured engine does not answer; the bot stays
	// offline until it does (Status.Detail says why).
	EngineFailed

	// numKinds is how many situations there are.
	numKinds = iota
)

// words returns the state's machine name (String, ParseKind, MarshalText
// and the display-preview command's --state flag) and its text for people
// (Text); "" for a Kind that is none of Kinds.
func (k Kind) words() (name, text string) {
	switch k {
	case Starting:
		return "starting", "Starting"
	case WaitingClock:
		return "waiting_clock", "Waiting for network/clock"
	case SetupNeeded:
		return "setup_needed", "Setup needed"
	case Connecting:
		return "connecting", "Connecting"
	case OnlineIdle:
		return "online_idle", "Online, idle"
	case InGame:
		return "in_game", "In game"
	case TokenRejected:
		return "token_rejected", "Token rejected"
	case NoNetwork:
		return "no_network", "No network"
	case StorageMissing:
		return "storage_missing", "Storage missing"
	case Stopping:
		return "stopping", "Stopping"
	case EngineFailed:
		return "engine_failed", "Engine failed"
	}
	return "", ""
}

// Kinds lists every Kind in order.
func Kinds() []Kind {
	k := make([]Kind, numKinds)
	for i := range k {
		k[i] = Kind(i)
	}
	return k
}

// String returns the machine name of k, such as "in_game".
func (k Kind) String() string {
	if name, _ := k.words(); name != "" {
		return name
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Text returns the state as a person reads it, such as "In game".
func (k Kind) Text() string {
	if _, text := k.words(); text != "" {
		return text
	}
	return k.String()
}

// ParseKind is the inverse of Kind.String.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown state %q", s)
}

// MarshalText encodes the state by its machine name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a machine name written by MarshalText.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Status is everything the indicators show. The caller builds one from
// its own state and passes it to Indicators.Show; only the fields of the
// current Kind are used, the others are ignored.
type Status struct {
	// Kind selects the situation.
	Kind Kind

	// Address is the device's IP address (any Kind; shown where room
	// allows, since there is no mDNS on the appliance).
	Address string

	// PairingCode is the code to type on the setup page (SetupNeeded,
	// TokenRejected).
	PairingCode string
	// SetupURL is where the setup page is served, such as
	// "http://192.168.1.23:8080/" (SetupNeeded, TokenRejected).
	SetupURL string

	// BotName is the bot's FlipSight name (OnlineIdle, InGame, Connecting).
	BotName string
	// Rating is the bot's rating; 0 means unknown and is not shown.
	Rating int

	// Game describes the match in progress (InGame).
	Game Game

	// Detail is a short reason shown with error kinds, such as
	// "HTTP 401" or "storage read-only". Never put a secret here.
	Detail string
}

// Game is the match in progress as the indicators show it.
type Game struct {
	// Opponent is the other side's name.
	Opponent string
	// Mode is the FlipSight game_mode: std, anti, grand, octagon, reversi.
	Mode string
	// Legs holds one entry per leg: two for bot-vs-bot, one for a human
	// match.
	Legs []Leg
}

// Leg is one board of a match, seen from our side.
type Leg struct {
	// Mine and Theirs are the disc counts of our colour and the other's.
	Mine, Theirs int
	// MyClock is our remaining time in this leg at the moment of Show
	// (server clock minus the time since the turn started). While MyTurn,
	// the display counts it down by itself from that moment.
	MyClock time.Duration
	// MyTurn is true when it is our move in this leg (our clock runs).
	MyTurn bool
	// Finished is true when neither colour can move any more.
	Finished bool
}
