package appliance

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/gpio"
)

// Kind is the one-word state of the appliance, shown by the pages and the
// indicators: the gpio package's, so that both name the states alike
// ("in_game" in /api/status and on the display's preview).
type Kind = gpio.Kind

// The states. Which one applies is decided by [Status.Kind] from the facts
// in a [Status].
const (
	// KindStarting: the process has just started.
	KindStarting = gpio.Starting
	// KindWaitingClock: waiting for the network and the clock (the Pi has no RTC).
	KindWaitingClock = gpio.WaitingClock
	// KindSetupNeeded: no token yet; the provisioning page waits for one.
	KindSetupNeeded = gpio.SetupNeeded
	// KindConnecting: a token is in effect and the bot is connecting.
	KindConnecting = gpio.Connecting
	// KindOnlineIdle: online, no match running.
	KindOnlineIdle = gpio.OnlineIdle
	// KindInGame: online with at least one match running.
	KindInGame = gpio.InGame
	// KindTokenRejected: FlipSight refused the token (401).
	KindTokenRejected = gpio.TokenRejected
	// KindNoNetwork: the server cannot be reached.
	KindNoNetwork = gpio.NoNetwork
	// KindStorageMissing: /perm is missing or read-only and there is no token
	// from the environment, so nothing can be kept.
	KindStorageMissing = gpio.StorageMissing
	// KindStopping: SIGTERM received, draining.
	KindStopping = gpio.Stopping
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
// [Hub]. The JSON form is /api/status; it never holds the token or the
// pairing code.
type Status struct {
	Kind      Kind        `json:"state"`
	StateText string      `json:"state_text"`
	Phase     Phase       `json:"-"`
	Detail    string      `json:"detail,omitempty"` // the last error or hint, for people
	Token     TokenSource `json:"token_source"`
	// Bot, BotState, Online, NetworkDown, Matches and Results are the
	// bot's own report (bot.Status), copied by applyBotStatus: its state,
	// whether its stream is up, whether the last failure was the network.
	Bot         BotInfo  `json:"bot"`
	BotState    string   `json:"bot_state"`
	Online      bool     `json:"online"`
	NetworkDown bool     `json:"network_down"`
	Rejected    bool     `json:"token_rejected"`
	Matches     []Match  `json:"matches"`
	Results     []Result `json:"recent_results"`
	// BotUpdated is when the bot made its last report.
	BotUpdated time.Time `json:"bot_updated"`
	Engine     Engine    `json:"engine"`
	Device     Device    `json:"device"`
	Storage    Storage   `json:"storage"`
	// Card is the token file on the SD card's boot partition, if any.
	Card CardToken `json:"card_token_file"`
	// Games is the state of the game records (record.Store).
	Games   record.StoreStatus `json:"games"`
	Updated time.Time          `json:"updated"`

	// PairingCode is shown on the display and in the log while setup is
	// needed; never in /api/status.
	PairingCode string `json:"-"`
}

// BotInfo names the bot as FlipSight knows it: the bot's own type.
type BotInfo = bot.BotInfo

// Match is one running match as the bot reports it.
type Match = bot.MatchStatus

// Leg is one board of a match with its clocks, from our side.
type Leg = bot.LegStatus

// Result is one finished match.
type Result = bot.Result

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
	for i := range c.Results {
		c.Results[i].Games = slices.Clone(c.Results[i].Games)
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
	h.st.Matches, h.st.Results = []Match{}, []Result{}
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
