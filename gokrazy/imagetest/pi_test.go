package imagetest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/gokrazy/disk"
	"flipbot.dev/flipbot/gokrazy/instance"
	"flipbot.dev/flipbot/gokrazy/vm"
	"flipbot.dev/flipbot/gpio/led"
	"flipbot.dev/flipbot/gpio/led/ledtest"
)

// piLEDs are flipbot's default LED pins (gpio/README.md, "Wiring").
var piLEDs = [3]struct {
	name string
	gpio uint
}{{"green", 17}, {"yellow", 27}, {"red", 22}}

// TestEmulatedPi boots the image that make image writes (OFFLINE=1: the
// Pi instance with flipbot-arena inside), unchanged apart from the token
// file, on QEMU's Raspberry Pi 3 Model B, and walks the owner's path,
// reading the LEDs back from the SoC's GPIO level register:
//   - pairing: red double blink while setup is needed; the pairing code
//     from gokrazy's log, the token posted; online and in a match with the
//     yellow LED slow-blinking beside a steady green; std turned off on the
//     settings page (the arena's offers are then refused, and it stops
//     offering), so the bot is online and idle: green steady alone; the
//     model and the indicators on /api/status; make update with a changed
//     flag, which reboots the board (the firmware stand-in power-cycles
//     it), and the bot back online with its stored token; idle, it
//     analyses the game it played, and the replay draws its score graph;
//   - card: flipbot-token.txt on the boot partition puts the bot online.
//
// It runs beside TestOfflineVM: most of its time is make update's upload
// over QEMU's emulated USB Ethernet (a full-speed usb-net device behind
// the Pi's DWC2 model: about 100 KB/s), which leaves the CPU to the VM.
func TestEmulatedPi(t *testing.T) {
	need(t, "gok", "qemu-system-aarch64", "mcopy", "/sbin/debugfs")
	t.Parallel()
	fails := &failures{}
	fails.report(t)
	dir := t.TempDir()
	ports := vm.Config{Machine: vm.Pi3B, TimeServer: true}
	require.NoError(t, ports.Ports())
	vars := []string{"OFFLINE=1", "EGAROUCID_STAGE="}
	base := filepath.Join(dir, "pi.img")
	took := makeTarget(t, "image", append(vars, "IMG="+base)...)
	t.Logf("make image OFFLINE=1: %.1f s", took.Seconds())
	password, err := vm.Password("flipbot")
	require.NoError(t, err)

	t.Run("pairing", func(t *testing.T) {
		img := copyImage(t, base, filepath.Join(dir, "pairing.img"))
		g := boot(t, img, ports, password, fails)
		for _, w := range g.v.Warnings() {
			t.Logf("warning: %s", w)
		}
		o := newOwner(t, g.v.AppURL(), &g.step)
		g.requireLEDs(t, "setup needed", [3]led.Pattern{led.Off, led.Off, led.DoubleBlink}, 2*time.Minute)

		var dev struct {
			Device struct {
				Model string `json:"model"`
			} `json:"device"`
			Indicators struct {
				LEDs    []string `json:"leds"`
				Display string   `json:"display"`
				Missing []string `json:"missing"`
			} `json:"indicators"`
		}
		_, body, err := o.get("/api/status")
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal([]byte(body), &dev))
		assert.Equal(t, "Raspberry Pi 3 Model B", dev.Device.Model)
		assert.Equal(t, []string{"green GPIO17", "yellow GPIO27", "red GPIO22"}, dev.Indicators.LEDs, "the LEDs on the Pi's own GPIO controller")
		assert.Empty(t, dev.Indicators.Display, "QEMU's Pi has no I²C controller")
		assert.Contains(t, strings.Join(dev.Indicators.Missing, "; "), "display: no I²C bus", "and the status says so")

		code := g.pairingCode(t, 3*time.Minute)
		o.setup(code, instance.OfflineToken)
		st := o.waitFor("online and in a match", 6*time.Minute, func(s status) bool {
			return s.Online && s.Token == "stored" && len(s.Matches) > 0
		})
		t.Logf("online and playing %s (match %d) %.0f s after power-on", st.Matches[0].Mode, st.Matches[0].ID, time.Since(g.start).Seconds())
		g.requireLEDs(t, "in a game", [3]led.Pattern{led.On, led.SlowBlink, led.Off}, 2*time.Minute)

		o.turnOffStd(password)
		o.waitFor("online and idle (std turned off, the arena's offers refused)", 10*time.Minute, func(s status) bool {
			return s.Online && len(s.Matches) == 0 && s.State == "online_idle"
		})
		g.requireLEDs(t, "online and idle", [3]led.Pattern{led.On, led.Off, led.Off}, 2*time.Minute)

		boots := g.v.Boots()
		start := time.Now()
		g.update(t, vars, o, "update")
		assert.Greater(t, g.v.Boots(), boots, "the update rebooted the board: the supervisor powered it on again")
		t.Logf("make update: online again %.0f s after it began", time.Since(start).Seconds())
		// Idle, the device analyses its games in the background: the
		// games page lists the analysis, the replay draws the score graph.
		start = time.Now()
		game := o.waitForAnalysis(10 * time.Minute)
		t.Logf("game %s (%s, %d moves) analysed, %.0f s after the bot was back", game.ID, game.Mode, game.Moves, time.Since(start).Seconds())
		httpStatus, body, err := o.get("/games/" + game.ID)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, httpStatus)
		assert.Contains(t, body, `id="g-cur"`, "the replay's score graph")
		assert.Equal(t, game.Moves+1, strings.Count(body, `class="ply-info" data-ply="`), "every position of the replay")
		for _, l := range g.log.Lines() {
			assert.NotContains(t, l, instance.OfflineToken, "the token is never logged")
		}
		g.powerOff(t)
	})

	t.Run("card", func(t *testing.T) {
		// Ports of its own: in CI the card's first power-on, right after
		// pairing's on the same host ports, twice never came up on the
		// network (the retry did); whether the ports are why is not known.
		ports := vm.Config{Machine: vm.Pi3B, TimeServer: true}
		require.NoError(t, ports.Ports())
		img := copyImage(t, base, filepath.Join(dir, "card.img"))
		boot1, err := disk.PartitionOf(img, disk.BootPartition)
		require.NoError(t, err)
		tok := filepath.Join(dir, "flipbot-token.txt")
		require.NoError(t, os.WriteFile(tok, []byte(instance.OfflineToken+"\n"), 0o644))
		runCmd(t, "mcopy", "-i", fmt.Sprintf("%s@@%d", img, boot1.Offset), tok, "::flipbot-token.txt")

		g := boot(t, img, ports, password, fails)
		o := newOwner(t, g.v.AppURL(), &g.step)
		o.waitFor("online from the card's token file", 6*time.Minute, func(s status) bool {
			return s.Online && s.Token == "stored"
		})
		t.Logf("online from the token file %.0f s after power-on", time.Since(g.start).Seconds())
		_, body, err := o.get("/")
		require.NoError(t, err)
		assert.NotContains(t, body, `name="code"`, "no setup page")
		g.requireLEDs(t, "online", [3]led.Pattern{led.On, -1, led.Off}, 2*time.Minute)
		g.powerOff(t)
	})
}

// requireLEDs reads the LED pins in 3-second windows until their patterns
// are want (a negative pattern: any), or fails after timeout.
func (g *guest) requireLEDs(t *testing.T, what string, want [3]led.Pattern, timeout time.Duration) {
	t.Helper()
	g.step.set("LEDs " + what)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var got [3]led.Pattern
	var scores [3]float64
	// A busy host answers QEMU's monitor slowly: a window with too few
	// samples to see a 100 ms flash is read again over a longer one.
	window, sampled, read := 3*time.Second, 0, 0
	var lastErr error
	for ctx.Err() == nil {
		samples, err := g.v.SampleGPIO(ctx, window, 20*time.Millisecond)
		sampled = len(samples)
		if err != nil || len(samples) < 50 {
			lastErr = err
			window = min(2*window, 12*time.Second)
			time.Sleep(time.Second)
			continue
		}
		read++
		ok := true
		for i, l := range piLEDs {
			ls := make([]ledtest.Sample, len(samples))
			for j, s := range samples {
				ls[j] = ledtest.Sample{At: s.At, Lit: s.Pin(l.gpio)}
			}
			got[i], scores[i] = ledtest.Recognise(ls)
			ok = ok && (want[i] < 0 || got[i] == want[i])
		}
		if ok {
			t.Logf("LEDs %s (%.0f s after power-on): green %s, yellow %s, red %s (%d samples; agreement %.2f %.2f %.2f)",
				what, time.Since(g.start).Seconds(), got[0], got[1], got[2], len(samples), scores[0], scores[1], scores[2])
			return
		}
	}
	t.Fatalf("LEDs %s: want %v, last read green %s, yellow %s, red %s (%d windows read, the last sampling %d times in %s; last error %v)",
		what, want, got[0], got[1], got[2], read, sampled, window, lastErr)
}

var (
	inputRE  = regexp.MustCompile(`name="(max_matches|threads|hash_mb|games_mb)"[^>]*value="([^"]*)"`)
	selectRE = regexp.MustCompile(`(?s)<select[^>]*name="display".*?<option value="([^"]*)" selected`)
)

// turnOffStd sets the std engine to "off" on the settings page, as an
// owner would, keeping the other settings as the page shows them.
func (o *owner) turnOffStd(password string) {
	o.t.Helper()
	req, err := http.NewRequest(http.MethodGet, o.base+"/settings", nil)
	require.NoError(o.t, err)
	req.SetBasicAuth("gokrazy", password)
	resp, err := o.c.Do(req)
	require.NoError(o.t, err)
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	require.Equal(o.t, http.StatusOK, resp.StatusCode, "the settings page opens with gok's password")
	page := string(b)
	m := csrfRE.FindStringSubmatch(page)
	require.NotNil(o.t, m, "the settings form")
	form := url.Values{"csrf": {m[1]}, "engine_std": {"off"}, "display": {"auto"}}
	for _, in := range inputRE.FindAllStringSubmatch(page, -1) {
		form.Set(in[1], in[2])
	}
	if d := selectRE.FindStringSubmatch(page); d != nil {
		form.Set("display", d[1])
	}
	req, err = http.NewRequest(http.MethodPost, o.base+"/settings", strings.NewReader(form.Encode()))
	require.NoError(o.t, err)
	req.SetBasicAuth("gokrazy", password)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err = o.c.Do(req)
	require.NoError(o.t, err)
	b, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	require.Equal(o.t, http.StatusSeeOther, resp.StatusCode, "settings saved:\n%s", tail(string(b), 20))
}
