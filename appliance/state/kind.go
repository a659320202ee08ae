package state

import "fmt"

// Kind is the one-word state of the appliance, shown by the pages, in
// /api/status ("state") and, mapped to the gpio package's own input, by
// the LEDs and the display. Which one applies is decided by [Status] from
// its facts (see Hub.Update).
type Kind int

// The states, in the order of [Kinds]. The zero value is KindStarting.
const (
	// KindStarting: the process has just started.
	KindStarting Kind = iota
	// KindWaitingClock: waiting for the network and the clock (the Pi has no RTC).
	KindWaitingClock
	// KindSetupNeeded: no token yet; the provisioning page waits for one.
	KindSetupNeeded
	// KindConnecting: a token is in effect and the bot is connecting.
	KindConnecting
	// KindOnlineIdle: online, no match running.
	KindOnlineIdle
	// KindInGame: online with at least one match running.
	KindInGame
	// KindTokenRejected: FlipSight refused the token (401).
	KindTokenRejected
	// KindNoNetwork: the server cannot be reached.
	KindNoNetwork
	// KindStorageMissing: /perm is missing or read-only and there is no token
	// from the environment, so nothing can be kept.
	KindStorageMissing
	// KindStopping: SIGTERM received, draining.
	KindStopping
	// KindEngineFailed: the configured engine failed its check; the bot
	// stays offline until it answers.
	KindEngineFailed

	// numKinds is how many states there are.
	numKinds = iota
)

// kindWords returns each state's machine name (String, MarshalText:
// /api/status's "state", the same words as the gpio package's states) and
// its text for people (Text).
func kindWords() [numKinds]struct{ name, text string } {
	return [...]struct{ name, text string }{
		KindStarting:       {"starting", "Starting"},
		KindWaitingClock:   {"waiting_clock", "Waiting for network/clock"},
		KindSetupNeeded:    {"setup_needed", "Setup needed"},
		KindConnecting:     {"connecting", "Connecting"},
		KindOnlineIdle:     {"online_idle", "Online, idle"},
		KindInGame:         {"in_game", "In game"},
		KindTokenRejected:  {"token_rejected", "Token rejected"},
		KindNoNetwork:      {"no_network", "No network"},
		KindStorageMissing: {"storage_missing", "Storage missing"},
		KindStopping:       {"stopping", "Stopping"},
		KindEngineFailed:   {"engine_failed", "Engine failed"},
	}
}

// Kinds lists every Kind in order.
func Kinds() []Kind {
	out := make([]Kind, 0, numKinds)
	for k := range Kind(numKinds) {
		out = append(out, k)
	}
	return out
}

// valid reports whether k is one of Kinds.
func (k Kind) valid() bool { return k >= 0 && k < numKinds }

// String returns the machine name of k, such as "in_game".
func (k Kind) String() string {
	if !k.valid() {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindWords()[k].name
}

// Text returns the state as a person reads it, such as "In game".
func (k Kind) Text() string {
	if !k.valid() {
		return k.String()
	}
	return kindWords()[k].text
}

// MarshalText encodes the state by its machine name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a machine name written by MarshalText.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, w := range kindWords() {
		if w.name == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown state %q", b)
}
