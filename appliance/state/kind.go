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

// words returns the state's machine name (String, MarshalText:
// /api/status's "state", the same words as the gpio package's states) and
// its text for people (Text); "" for a Kind that is none of Kinds.
func (k Kind) words() (name, text string) {
	switch k {
	case KindStarting:
		return "starting", "Starting"
	case KindWaitingClock:
		return "waiting_clock", "Waiting for network/clock"
	case KindSetupNeeded:
		return "setup_needed", "Setup needed"
	case KindConnecting:
		return "connecting", "Connecting"
	case KindOnlineIdle:
		return "online_idle", "Online, idle"
	case KindInGame:
		return "in_game", "In game"
	case KindTokenRejected:
		return "token_rejected", "Token rejected"
	case KindNoNetwork:
		return "no_network", "No network"
	case KindStorageMissing:
		return "storage_missing", "Storage missing"
	case KindStopping:
		return "stopping", "Stopping"
	case KindEngineFailed:
		return "engine_failed", "Engine failed"
	}
	return "", ""
}

// Kinds lists every Kind in order.
func Kinds() []Kind {
	out := make([]Kind, 0, numKinds)
	for k := range Kind(numKinds) {
		out = append(out, k)
	}
	return out
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

// MarshalText encodes the state by its machine name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a machine name written by MarshalText.
func (k *Kind) UnmarshalText(b []byte) error {
	for _, c := range Kinds() {
		if c.String() == string(b) {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("unknown state %q", b)
}
