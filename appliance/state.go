package appliance

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Kind is the one-word state of the appliance, shown by the pages and the
// indicators.
type Kind int

// The states, in no particular order. Which one applies is decided by
// [Status.Kind] from the facts in a [Status].
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
)

var kindNames = [...]string{
	KindStarting:       "starting",
	KindWaitingClock:   "waiting_clock",
	KindSetupNeeded:    "setup_needed",
	KindConnecting:     "connecting",
	KindOnlineIdle:     "online_idle",
	KindInGame:         "in_game",
	KindTokenRejected:  "token_rejected",
	KindNoNetwork:      "no_network",
	KindStorageMissing: "storage_missing",
	KindStopping:       "stopping",
}

var kindTexts = [...]string{
	KindStarting:       "Starting",
	KindWaitingClock:   "Waiting for network/clock",
	KindSetupNeeded:    "Setup needed",
	KindConnecting:     "Connecting",
	KindOnlineIdle:     "Online, idle",
	KindInGame:         "In game",
	KindTokenRejected:  "Token rejected",
	KindNoNetwork:      "No network",
	KindStorageMissing: "Storage missing",
	KindStopping:       "Stopping",
}

// String returns the machine name of the state, as in /api/status.
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// Text returns the state as a person reads it.
func (k Kind) Text() string {
	if k < 0 || int(k) >= len(kindTexts) {
		return k.String()
	}
	return kindTexts[k]
}

// MarshalText encodes the state by its machine name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a machine name written by MarshalText.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown state %q", b)
}

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
// [Hub]. The JSON form is /api/status; it never holds the token or the
// pairing code.
type Status struct {
	Kind      Kind        `json:"state"`
	StateText string      `json:"state_text"`
	Phase     Phase       `json:"-"`
	Detail    string      `json:"detail,omitempty"` // the last error or hint, for people
	Token     TokenSource `json:"token_source"`
	Bot       BotInfo     `json:"bot"`
	Online    bool        `json:"online"`
	// NetworkDown is set by the bot runner when the last attempt to reach
	// the server failed at the network level.
	NetworkDown bool     `json:"network_down"`
	Rejected    bool     `json:"token_rejected"`
	Matches     []Match  `json:"matches"`
	Results     []Result `json:"recent_results"`
	Engine      Engine   `json:"engine"`
	Device      Device   `json:"device"`
	Storage     Storage  `json:"storage"`
	// Card is the token file on the SD card's boot partition, if any.
	Card    CardToken `json:"card_token_file"`
	Updated time.Time `json:"updated"`

	// PairingCode is shown on the display and in the log while setup is
	// needed; never in /api/status.
	PairingCode string `json:"-"`
}

// BotInfo names the bot as FlipSight knows it.
type BotInfo struct {
	ID     int64   `json:"id,omitempty"`
	Name   string  `json:"name,omitempty"`
	Rating float64 `json:"rating,omitempty"`
}

// Match is one running match as the pages show it.
type Match struct {
	ID       int64  `json:"id"`
	Mode     string `json:"game_mode"`
	Opponent string `json:"opponent"`
	Ranked   bool   `json:"ranked"`
	Status   string `json:"status"`
	Legs     []Leg  `json:"legs"`
}

// Leg is one board of a match with its clocks, from our side.
type Leg struct {
	Index   int    `json:"leg"`
	Size    int    `json:"board_size"`
	Board   []int  `json:"board"`   // 0 empty, 1 black, 2 white, a1 first
	Blocked []int  `json:"blocked"` // unusable squares (octagon)
	MyColor int    `json:"my_color"`
	Turn    int    `json:"turn"`
	MyTurn  bool   `json:"my_turn"`
	Status  string `json:"status"`
	// ClocksMS are the remaining times [black, white] at ClockAt; the
	// pages run the mover's clock down from there.
	ClocksMS [2]int64  `json:"clocks_ms"`
	ClockAt  time.Time `json:"clocks_at"`
	Discs    [2]int    `json:"discs"`
	LastMove int       `json:"last_move"` // -1 when none
}

// Result is one finished match.
type Result struct {
	MatchID  int64     `json:"match_id"`
	Mode     string    `json:"game_mode"`
	Opponent string    `json:"opponent"`
	Outcome  string    `json:"outcome"` // win, loss, draw, aborted
	MyDiscs  int       `json:"my_discs"`
	OppDiscs int       `json:"opponent_discs"`
	Reason   string    `json:"finish_reason,omitempty"`
	At       time.Time `json:"at"`
}

// Engine is the engine part of the settings in effect.
type Engine struct {
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
}

// Storage describes /perm.
type Storage struct {
	Path      string `json:"path"`
	OK        bool   `json:"ok"`
	Problem   string `json:"problem,omitempty"`
	FreeBytes uint64 `json:"free_bytes"`
}

// Kind decides the one state from the facts. The order is the order of
// what the owner must act on first.
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
		c.Matches[i] = m
	}
	c.Results = slices.Clone(s.Results)
	if c.Results == nil {
		c.Results = []Result{}
	}
	c.Device.Addresses = slices.Clone(s.Device.Addresses)
	c.Device.PageURLs = slices.Clone(s.Device.PageURLs)
	if s.Engine.PerMode != nil {
		c.Engine.PerMode = make(map[string]string, len(s.Engine.PerMode))
		for k, v := range s.Engine.PerMode {
			c.Engine.PerMode[k] = v
		}
	}
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

// Hub owns the one [Status] of the appliance. Writers change it with Update;
// readers take copies with Snapshot or wait for changes with Subscribe. It is
// safe for concurrent use; the mutex guards every field.
type Hub struct {
	mu   sync.Mutex
	st   Status
	now  func() time.Time
	subs map[chan struct{}]struct{}
}

// NewHub returns a Hub starting in KindStarting. now is the clock (nil: time.Now).
func NewHub(now func() time.Time) *Hub {
	if now == nil {
		now = time.Now
	}
	h := &Hub{now: now, subs: map[chan struct{}]struct{}{}}
	h.st.Token = TokenNone
	h.st.Kind = KindStarting
	h.st.StateText = KindStarting.Text()
	h.st.Updated = now()
	return h
}

// Snapshot returns a copy of the current status.
func (h *Hub) Snapshot() Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.st.clone()
}

// Update changes the status under the lock, recomputes the state and wakes
// every subscriber. f must not block.
func (h *Hub) Update(f func(*Status)) {
	h.mu.Lock()
	f(&h.st)
	h.st.Kind = h.st.deriveKind()
	h.st.StateText = h.st.Kind.Text()
	h.st.Updated = h.now()
	if !h.st.Device.Started.IsZero() {
		h.st.Device.UptimeSec = int64(h.st.Updated.Sub(h.st.Device.Started) / time.Second)
	}
	for c := range h.subs {
		select {
		case c <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
	h.mu.Unlock()
}

// Subscribe returns a channel that receives a value after every change
// (changes in quick succession may be merged into one wake-up) and a
// function that ends the subscription.
func (h *Hub) Subscribe() (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	h.mu.Lock()
	h.subs[c] = struct{}{}
	h.mu.Unlock()
	return c, func() {
		h.mu.Lock()
		delete(h.subs, c)
		h.mu.Unlock()
	}
}
