package appliance

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/gpio"
)

// TestMirrorIsWhatDrivesThePins: the mirror's LEDs are gpio.LEDPatterns
// of the status the indicators show, with the patterns' timing, and its
// display picture is gpio.Preview of the same status, rendered once per
// change.
func TestMirrorIsWhatDrivesThePins(t *testing.T) {
	ind := NewGPIOIndicators(slog.New(slog.DiscardHandler))
	defer ind.Close()
	s := settings.Default()
	s.Display = "none"
	ind.Configure(s)
	st := state.Status{Kind: state.KindInGame, Device: state.Device{Addresses: []string{"192.168.1.23"}},
		Report: state.Report{Bot: state.BotInfo{Name: "flipbot-pi", Rating: 1532}}}
	ind.Show(st)
	m := ind.Mirror()
	require.Len(t, m.LEDs, 3)
	want := []state.Light{
		{Colour: "green", Pattern: "on"},
		{Colour: "yellow", Pattern: "slow blink", StepsMS: []int64{500, 500}},
		{Colour: "red", Pattern: "off"},
	}
	for i := range want {
		want[i].Wired = m.LEDs[i].Wired // whether this machine has the pins
	}
	assert.Equal(t, want, m.LEDs)

	gs := ToGPIOStatus(st, time.Now())
	var ref bytes.Buffer
	require.NoError(t, gpio.Preview(&ref, gs, gpio.DisplaySSD1306, gpio.View{}))
	b, err := ind.DisplayPNG()
	require.NoError(t, err)
	assert.Equal(t, ref.Bytes(), b, "the picture is the gpio package's rendering of the same status")
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Equal(t, state.Screen{Type: "ssd1306", Width: cfg.Width, Height: cfg.Height, Version: m.Display.Version}, m.Display)
	assert.Equal(t, 128*3+12, cfg.Width)

	again := ind.Mirror()
	assert.Equal(t, m.Display.Version, again.Display.Version, "no change, no new rendering")
	st.Kind = state.KindOnlineIdle
	ind.Show(st)
	idle := ind.Mirror()
	assert.NotEqual(t, m.Display.Version, idle.Display.Version, "a new screen, a new version")
	assert.Equal(t, "on", idle.LEDs[0].Pattern)
	assert.Equal(t, "off", idle.LEDs[1].Pattern)
}

// TestStatusPageMirrorsTheIndicators: the status page draws the three
// LEDs with their patterns, the display's picture (/display.png, no
// password) and what is missing with the reason. Before, none of it was
// on the page.
func TestStatusPageMirrorsTheIndicators(t *testing.T) {
	e := provisioned(t, func(cfg *Config, a *app) {
		ind := NewGPIOIndicators(slog.New(slog.DiscardHandler))
		t.Cleanup(func() { ind.Close() })
		cfg.Indicators = ind
	})
	_, body := e.get("/", false)
	assert.Contains(t, body, `<i class="led c-green p-on" data-pattern="on" data-period="0"></i> green: <b>on</b>`)
	assert.Contains(t, body, `<i class="led c-yellow p-off"`)
	assert.Contains(t, body, `<i class="led c-red p-off"`)
	assert.Regexp(t, `<img id="display-img" src="/display.png\?v=\d+" width="396" height="204"`, body)
	if _, err := os.Stat("/dev/gpiochip0"); err != nil {
		assert.Contains(t, body, `<li class="warn">green LED pin GPIO17 not available`, "the reason a pin is missing")
	}
	_, live := e.get("/live", false)
	assert.Contains(t, live, `id="mirror"`, "refreshed with the live part")

	resp, err := e.client.Get(e.base + "/display.png")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "image/png", resp.Header.Get("Content-Type"))
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var ref bytes.Buffer
	require.NoError(t, gpio.Preview(&ref, ToGPIOStatus(e.a.hub.Snapshot(), time.Now()), gpio.DisplaySSD1306, gpio.View{}))
	assert.Equal(t, ref.Bytes(), b, "the screen of the status the device shows")

	req, err := http.NewRequest(http.MethodGet, e.base+"/display.png", nil)
	require.NoError(t, err)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	again, err := e.client.Do(req)
	require.NoError(t, err)
	again.Body.Close()
	assert.Equal(t, http.StatusNotModified, again.StatusCode, "the same screen is not sent again")
}

// TestLEDAnimationsMatchThePatterns: the page's CSS animation of each
// pattern the status LEDs use has the pattern's period and its lit and dark steps at the
// pattern's times, so the page blinks as the LED does.
func TestLEDAnimationsMatchThePatterns(t *testing.T) {
	css, err := os.ReadFile("web/style.css")
	require.NoError(t, err)
	type pattern interface {
		String() string
		Period() time.Duration
		Steps() []time.Duration
	}
	used := map[string]pattern{}
	for _, k := range gpio.Kinds() {
		for _, p := range gpio.StatusLEDs(gpio.Status{Kind: k}) {
			used[p.String()] = p
		}
	}
	require.Len(t, used, 6, "every pattern is used by some state")
	for _, p := range used {
		class := strings.ReplaceAll(p.String(), " ", "-")
		t.Run(class, func(t *testing.T) {
			if p.Period() == 0 {
				assert.Contains(t, string(css), ".led.p-"+class+" {")
				return
			}
			rule := regexp.MustCompile(`\.led\.p-` + class + ` \{ animation:led-` + class + ` (\d+)ms step-end infinite; \}`).FindSubmatch(css)
			require.NotNil(t, rule, "the animation of %v", p)
			assert.Equal(t, strconv.FormatInt(p.Period().Milliseconds(), 10), string(rule[1]), "period")
			frames := regexp.MustCompile(`@keyframes led-` + class + ` \{(.*)\}\n`).FindSubmatch(css)
			require.NotNil(t, frames, "the keyframes of %v", p)
			var want []string
			var at time.Duration
			for i, s := range p.Steps() {
				op := ".15"
				if i%2 == 0 {
					op = "1"
				}
				want = append(want, fmt.Sprintf("%g%% { opacity:%s; }", float64(100*at)/float64(p.Period()), op))
				at += s
			}
			want = append(want, "100% { opacity:.15; }")
			assert.Equal(t, " "+strings.Join(want, " ")+" ", string(frames[1]))
		})
	}
}

// TestDisplayPictureHidesThePairingCode: /display.png, served without a
// password, shows the setup screen with the pairing code dashed out: the
// code proves that the owner sees the device itself.
func TestDisplayPictureHidesThePairingCode(t *testing.T) {
	ind := NewGPIOIndicators(slog.New(slog.DiscardHandler))
	defer ind.Close()
	s := settings.Default()
	s.Display = "none"
	ind.Configure(s)
	st := state.Status{Kind: state.KindSetupNeeded, PairingCode: "480917",
		Device: state.Device{Addresses: []string{"192.168.1.23"}, PageURLs: []string{"http://192.168.1.23:8080/"}}}
	ind.Show(st)
	b, err := ind.DisplayPNG()
	require.NoError(t, err)
	gs := ToGPIOStatus(st, time.Now())
	var device, hidden bytes.Buffer
	require.NoError(t, gpio.Preview(&device, gs, gpio.DisplaySSD1306, gpio.View{}))
	gs.PairingCode = "------"
	require.NoError(t, gpio.Preview(&hidden, gs, gpio.DisplaySSD1306, gpio.View{}))
	assert.NotEqual(t, device.Bytes(), b, "not the code the device shows")
	assert.Equal(t, hidden.Bytes(), b, "the same screen, the code dashed out")
}
