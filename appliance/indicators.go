package appliance

import (
	"context"
	"log/slog"
	"math"
	"net/url"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/gpio"
)

// GPIOIndicators drives the LEDs and display of the gpio package from the
// appliance's Status. Configure re-opens the hardware when the pins or the
// display change, so new settings apply without a reboot. The hardware
// opened keeps showing until Close, whatever context its opener ran in: a
// signal that starts the drain must not freeze the LEDs and the display,
// which show the drain (the Stopping state, the matches played to their
// end). Safe for concurrent use; the mutex guards the open Indicators.
type GPIOIndicators struct {
	log *slog.Logger

	mu    sync.Mutex
	cfg   gpio.Config
	in    *gpio.Indicators
	last  gpio.Status
	found state.Indicators

	// screens keeps the display's screen rendered for the pages.
	screens screenCache
}

// NewGPIOIndicators returns indicators that open the hardware on the first
// Configure and show until Close, which releases the devices.
func NewGPIOIndicators(log *slog.Logger) *GPIOIndicators {
	if log == nil {
		log = slog.Default()
	}
	return &GPIOIndicators{log: log}
}

// gpioConfig converts the settings to the gpio package's.
func gpioConfig(s settings.Settings, log *slog.Logger) gpio.Config {
	d, err := gpio.ParseDisplay(s.Display)
	if err != nil {
		d = gpio.DisplayAuto
	}
	return gpio.Config{
		GreenPin: s.LEDs.Online, YellowPin: s.LEDs.Game, RedPin: s.LEDs.Error,
		I2CBus: s.I2CBus, Display: d, Log: log,
	}
}

// Configure opens the hardware for s, closing what was open when it
// differs, and returns what it found.
func (g *GPIOIndicators) Configure(s settings.Settings) state.Indicators {
	cfg := gpioConfig(s, g.log)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.in != nil && sameHardware(g.cfg, cfg) {
		return g.found
	}
	if g.in != nil {
		g.in.Close()
	}
	g.cfg = cfg
	// Stopped by its Close (here on a change, or in g.Close), not by a
	// context: the hardware outlives the settings request that opens it.
	g.in = gpio.Open(context.Background(), cfg) // logs what it found
	g.in.Show(g.last)
	f := g.in.Found()
	// Empty lists, not null, in /api/status.
	g.found = state.Indicators{LEDs: append([]string{}, f.LEDs...), Display: f.Display, Missing: append([]string{}, f.Missing...)}
	return g.found
}

func sameHardware(a, b gpio.Config) bool {
	return a.GreenPin == b.GreenPin && a.YellowPin == b.YellowPin && a.RedPin == b.RedPin &&
		a.I2CBus == b.I2CBus && a.Display == b.Display
}

// Show renders st.
func (g *GPIOIndicators) Show(st state.Status) {
	gs := ToGPIOStatus(st, time.Now())
	g.mu.Lock()
	defer g.mu.Unlock()
	g.last = gs
	if g.in != nil {
		g.in.Show(gs)
	}
}

// Close turns the indicators off and releases the hardware.
func (g *GPIOIndicators) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.in == nil {
		return nil
	}
	err := g.in.Close()
	g.in = nil
	return err
}

// ToGPIOStatus converts a Status into what the indicators show: the
// address to type, the pairing code while setup is needed, the bot, and
// the first running match's legs from our side. A running clock of ours is
// given as it stands at now, since the display counts it down from there.
func ToGPIOStatus(st state.Status, now time.Time) gpio.Status {
	g := gpio.Status{
		Kind:    indicatorKind(st.Kind),
		BotName: st.Bot.Name,
		Rating:  int(math.Round(st.Bot.Rating)),
		Detail:  st.Detail,
	}
	if g.Detail == "" {
		g.Detail = st.Card.Problem()
	}
	if len(st.Device.Addresses) > 0 {
		g.Address = st.Device.Addresses[0]
	}
	if st.Kind == state.KindSetupNeeded || st.Kind == state.KindTokenRejected || st.Kind == state.KindStorageMissing {
		g.PairingCode = st.PairingCode
		g.SetupURL = setupURL(st)
	}
	switch {
	case st.Kind == state.KindStorageMissing:
		g.Detail = "/perm missing or read-only"
	case st.Unreachable():
		g.Detail = "FlipSight unreachable: " + state.NetworkCause(st.Detail)
	case st.Kind == state.KindNoNetwork:
		g.Detail = state.NetworkCause(st.Detail)
	}
	if len(st.Matches) > 0 {
		m := st.Matches[0]
		g.Game = gpio.Game{Opponent: m.Opponent, Mode: m.Mode}
		for _, l := range m.Legs {
			gl := gpio.Leg{MyTurn: l.MyTurn, Finished: l.Status != "" && l.Status != "active"}
			if l.MyColor == 1 || l.MyColor == 2 {
				gl.Mine, gl.Theirs = l.Discs[l.MyColor-1], l.Discs[2-l.MyColor]
				gl.MyClock = time.Duration(l.ClocksMS[l.MyColor-1]) * time.Millisecond
				if l.MyTurn && !gl.Finished && !l.ClocksAt.IsZero() {
					gl.MyClock = max(0, gl.MyClock-now.Sub(l.ClocksAt))
				}
			}
			g.Game.Legs = append(g.Game.Legs, gl)
		}
	}
	return g
}

// indicatorKind is the indicators' input for an appliance state: the gpio
// package knows what LEDs and screens show, not the appliance's states.
// Each state has the input of its own name (TestEveryStateHasItsIndicator);
// a state without one shows as starting.
func indicatorKind(k state.Kind) gpio.Kind {
	switch k {
	case state.KindStarting:
		return gpio.Starting
	case state.KindWaitingClock:
		return gpio.WaitingClock
	case state.KindSetupNeeded:
		return gpio.SetupNeeded
	case state.KindConnecting:
		return gpio.Connecting
	case state.KindOnlineIdle:
		return gpio.OnlineIdle
	case state.KindInGame:
		return gpio.InGame
	case state.KindTokenRejected:
		return gpio.TokenRejected
	case state.KindNoNetwork:
		return gpio.NoNetwork
	case state.KindStorageMissing:
		return gpio.StorageMissing
	case state.KindStopping:
		return gpio.Stopping
	case state.KindEngineFailed:
		return gpio.EngineFailed
	}
	return gpio.Starting
}

// setupURL is the page URL to show on the display: on the first address
// people can type (the pages may be bound to loopback only on a PC).
func setupURL(st state.Status) string {
	for _, u := range st.Device.PageURLs {
		if pu, err := url.Parse(u); err == nil && pu.Hostname() != "127.0.0.1" && pu.Hostname() != "::1" {
			return u
		}
	}
	if len(st.Device.PageURLs) > 0 {
		return st.Device.PageURLs[0]
	}
	return ""
}
