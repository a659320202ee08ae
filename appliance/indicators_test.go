package appliance

import (
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/gpio"
)

func TestToGPIOStatus(t *testing.T) {
	setup := state.Status{Kind: state.KindSetupNeeded, PairingCode: "042917",
		Device: state.Device{Addresses: []string{"192.168.1.23"}, PageURLs: []string{"http://127.0.0.1:8080/", "http://192.168.1.23:8080/"}}}
	g := ToGPIOStatus(setup, time.Time{})
	assert.Equal(t, gpio.SetupNeeded, g.Kind)
	assert.Equal(t, "042917", g.PairingCode)
	assert.Equal(t, "http://192.168.1.23:8080/", g.SetupURL, "a URL people can type, not loopback")
	assert.Equal(t, "192.168.1.23", g.Address)

	online := state.Status{Kind: state.KindOnlineIdle, PairingCode: "stale", Report: state.Report{Bot: state.BotInfo{Name: "PiBot", Rating: 1612.6}}}
	g = ToGPIOStatus(online, time.Time{})
	assert.Equal(t, gpio.OnlineIdle, g.Kind)
	assert.Empty(t, g.PairingCode, "the code is shown only while setup is needed")
	assert.Equal(t, 1613, g.Rating)

	game := state.Status{Kind: state.KindInGame, Report: state.Report{Matches: matchesOf([]bot.MatchStatus{testMatch()})}}
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for i := range game.Matches[0].Legs {
		game.Matches[0].Legs[i].ClocksAt = at
	}
	g = ToGPIOStatus(game, at.Add(1500*time.Millisecond))
	assert.Equal(t, gpio.InGame, g.Kind)
	assert.Equal(t, "Edax", g.Game.Opponent)
	assert.Equal(t, []gpio.Leg{
		{Mine: 2, Theirs: 2, MyClock: 39500 * time.Millisecond, MyTurn: true},
		{Mine: 2, Theirs: 2, MyClock: 58 * time.Second},
	}, g.Game.Legs, "each leg from our side: our colour's discs and clock, a running one as it stands now")

	refused := `Get "https://othelloclub.com/api/v1/bot/poll": dial tcp 203.0.113.5:443: connect: connection refused; retrying in 2s`
	g = ToGPIOStatus(state.Status{Kind: state.KindNoNetwork, Report: state.Report{Detail: refused}, Device: state.Device{NetworkUp: true}}, time.Time{})
	assert.Equal(t, "FlipSight unreachable: connection refused by othelloclub.com", g.Detail, "the display's reason, not the Go error")
	g = ToGPIOStatus(state.Status{Kind: state.KindNoNetwork, Report: state.Report{Detail: refused}}, time.Time{})
	assert.Equal(t, "connection refused by othelloclub.com", g.Detail)

	g = ToGPIOStatus(state.Status{Kind: state.KindStorageMissing}, time.Time{})
	assert.Equal(t, gpio.StorageMissing, g.Kind)
	assert.Contains(t, g.Detail, "/perm")
}

// Without hardware (a PC) the indicators open nothing, log it, and take
// status changes and new settings without failing.
func TestGPIOIndicatorsWithoutHardware(t *testing.T) {
	logs := &syncBuffer{}
	ind := NewGPIOIndicators(slog.New(slog.NewTextHandler(logs, nil)))
	ind.Show(state.Status{Kind: state.KindSetupNeeded, PairingCode: "123456"}) // before Configure: kept for later
	s := settings.Default()
	s.Display = "none"
	found := ind.Configure(s)
	assert.Equal(t, found, ind.Configure(s), "same hardware: nothing reopened, the same report")
	if _, err := os.Stat("/dev/gpiochip0"); err != nil {
		assert.Empty(t, found.LEDs)
		assert.Contains(t, found.Missing, "green LED pin GPIO17 not available", "the status says why")
	}
	s.LEDs.Online = "GPIO5"
	s.Display = "auto"
	found = ind.Configure(s)
	if _, err := os.Stat("/dev/i2c-1"); err != nil {
		assert.Contains(t, strings.Join(found.Missing, "; "), "display: no I²C bus")
	}
	ind.Show(state.Status{Kind: state.KindOnlineIdle})
	require.NoError(t, ind.Close())
	require.NoError(t, ind.Close())
	assert.Equal(t, 2, strings.Count(logs.String(), "msg=indicators "), "opened twice (gpio.Open logs once each): at first and after the change")
}

// Every state of the appliance has the indicators' input of the same name
// (the gpio package's own states, which the display-preview command
// takes), each its own, and their texts read the same.
func TestEveryStateHasItsIndicator(t *testing.T) {
	require.Len(t, state.Kinds(), len(gpio.Kinds()))
	seen := map[gpio.Kind]state.Kind{}
	for _, k := range state.Kinds() {
		g := indicatorKind(k)
		assert.Equal(t, k.String(), g.String())
		assert.Equal(t, k.Text(), g.Text())
		if prev, ok := seen[g]; ok {
			t.Errorf("%v and %v both show as %v", prev, k, g)
		}
		seen[g] = k
	}
	assert.Equal(t, gpio.Starting, indicatorKind(state.Kind(len(state.Kinds()))), "an unknown state shows as starting")
}
