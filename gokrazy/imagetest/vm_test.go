package imagetest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/gokrazy/disk"
	"flipbot.dev/flipbot/gokrazy/instance"
	"flipbot.dev/flipbot/gokrazy/vm"
)

// TestOfflineVM builds the offline VM image (flipbot-arena inside, on the
// device's loopback) and boots it under qemu-system-aarch64 twice, walking
// both of an owner's first-boot paths and a gok update in each:
//   - pairing: the setup page answers, the pairing code is read from
//     gokrazy's log, the token is posted, the bot goes online and plays;
//     it records a finished game, which the games page still lists and
//     replays move by move after the update's reboots;
//   - card: a flipbot-token.txt copied onto the boot partition (as from a
//     laptop) puts the bot online with no setup page.
//
// After gok update (with a changed flag) the bot is online again with its
// stored token and no setup page; the VM then powers off cleanly. In the
// pairing path make vm-update is started while a match runs (std turned
// off first, so that no next match follows): it waits for the match's end
// and then updates, and the device records the match with its result,
// not as lost by disconnect. The card path updates with UPDATE_NOW=1.
func TestOfflineVM(t *testing.T) {
	need(t, "gok", "qemu-system-aarch64", vm.Firmware, "mcopy", "/sbin/debugfs")
	t.Parallel() // beside TestEmulatedPi
	fails := &failures{}
	fails.report(t)
	dir := t.TempDir()
	ports := vm.Config{}
	require.NoError(t, ports.Ports())
	vars := []string{"OFFLINE=1", fmt.Sprintf("VM_HTTP_PORT=%d", ports.HTTPPort)}
	stage := egaroucidStage(t)
	vars = append(vars, "EGAROUCID_STAGE="+stage) // "" leaves Egaroucid out
	base := filepath.Join(dir, "base.img")
	took := makeTarget(t, "vm-image", append(vars, "VM_IMG="+base)...)
	t.Logf("make vm-image OFFLINE=1: %.1f s", took.Seconds())
	password, err := vm.Password("flipbot")
	require.NoError(t, err)

	t.Run("pairing", func(t *testing.T) {
		img := copyImage(t, base, filepath.Join(dir, "pairing.img"))
		g := boot(t, img, ports, password, fails)
		o := newOwner(t, g.v.AppURL(), &g.step)

		code := g.pairingCode(t, 3*time.Minute)
		t.Logf("pairing code read from gokrazy's log %.0f s after power-on", time.Since(g.start).Seconds())
		o.setup(code, instance.OfflineToken)
		st := o.waitFor("online and in a match", 4*time.Minute, func(s status) bool {
			return s.Online && s.Token == "stored" && len(s.Matches) > 0
		})
		t.Logf("online and playing %s (match %d) %.0f s after power-on", st.Matches[0].Mode, st.Matches[0].ID, time.Since(g.start).Seconds())

		if stage != "" {
			req, err := http.NewRequest(http.MethodGet, g.v.AppURL()+"/settings", nil)
			require.NoError(t, err)
			req.SetBasicAuth("gokrazy", password)
			resp, err := o.c.Do(req)
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode, "the settings page opens with gok's password")
			assert.Contains(t, string(b), `<option value="egaroucid"`, "the image's Egaroucid is offered for std")
		}

		// make vm-update while the match runs waits for its end: std
		// turned off first, so that the arena offers no next match
		// (auto-matching would start one at once; see wait-idle).
		o.turnOffStd(password)
		st = o.waitFor("the match still running after std was turned off", time.Minute, func(s status) bool {
			return s.Online && len(s.Matches) > 0
		})
		match := st.Matches[0].ID
		start := time.Now()
		upd := makeAsync(t, "vm-update", append(vars, "FLIPBOT_FLAGS=-drain=9s", "UPDATE_HOST="+g.v.UpdateHost(), "APP_URL="+g.v.AppURL(), "WAIT_TIMEOUT=15m")...)
		game := o.waitForGame(15 * time.Minute)
		t.Logf("game %s (%s, %d moves) recorded %.0f s after power-on", game.ID, game.Mode, game.Moves, time.Since(g.start).Seconds())
		out := <-upd
		require.NoError(t, out.err, "make vm-update:\n%s", tail(out.text, 40))
		t.Logf("make vm-update, started during match %d: %.0f s", match, out.took.Seconds())
		for _, l := range strings.Split(out.text, "\n") {
			if strings.Contains(l, "waiting for") || strings.Contains(l, "no match runs") {
				t.Logf("  %s", l)
			}
		}
		assert.Contains(t, out.text, fmt.Sprintf("waiting for match #%d vs %s", match, instance.OfflineOpponent), "it waited for the running match")
		assert.Contains(t, out.text, "no match runs on the device", "and updated once it had ended")
		g.updated(t, o, start)
		o.requireGame(game, "after gok update (the device rebooted)")
		o.requireMatchResult(match)
		g.powerOff(t)
	})

	t.Run("card", func(t *testing.T) {
		img := copyImage(t, base, filepath.Join(dir, "card.img"))
		boot1, err := disk.PartitionOf(img, disk.BootPartition)
		require.NoError(t, err)
		card := fmt.Sprintf("%s@@%d", img, boot1.Offset)
		tok := filepath.Join(dir, "flipbot-token.txt")
		// As Notepad writes it: a byte-order mark and CRLF.
		require.NoError(t, os.WriteFile(tok, []byte("\xef\xbb\xbf"+instance.OfflineToken+"\r\n"), 0o644))
		runCmd(t, "mcopy", "-i", card, tok, "::flipbot-token.txt")

		g := boot(t, img, ports, password, fails)
		o := newOwner(t, g.v.AppURL(), &g.step)
		st := o.waitFor("online from the card's token file", 4*time.Minute, func(s status) bool {
			return s.Online && s.Token == "stored"
		})
		t.Logf("online from the token file %.0f s after power-on (state %s)", time.Since(g.start).Seconds(), st.State)
		_, body, err := o.get("/")
		require.NoError(t, err)
		assert.NotContains(t, body, `name="code"`, "no setup page")
		assert.Contains(t, body, "flipbot-token.txt", "the status page says the token file is on the card")
		for _, l := range g.log.Lines() {
			assert.NotContains(t, l, instance.OfflineToken, "the token is never logged")
		}

		// UPDATE_NOW=1: at once, whatever match the bot plays.
		g.update(t, append(vars, "UPDATE_NOW=1"), o, "vm-update")
		g.powerOff(t)
		out, err := exec.Command("mdir", "-b", "-i", card, "::").CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.NotContains(t, strings.ToLower(string(out)), "flipbot-token.txt", "gok update rewrote the boot partition")
	})
}

// guest is a booted VM under test.
type guest struct {
	v        *vm.VM
	start    time.Time
	password string
	log      *vm.LogFollower
	codes    chan string
	cancel   context.CancelFunc
	step     stepTrail
	// diag is what was seen of a guest whose page did not answer;
	// gokrazyUp whether gokrazy's web UI answered then.
	diag      string
	gokrazyUp bool
}

func copyImage(t *testing.T, src, dst string) string {
	t.Helper()
	runCmd(t, "cp", "--sparse=always", src, dst)
	return dst
}

// boot powers the image on and waits for flipbot's page. A guest that
// never comes up on the network (neither gokrazy's web UI nor flipbot's
// page answers in 150 s while QEMU runs) is power-cycled once, as an
// owner would replug a board, and the test says so at its end: QEMU's
// emulated USB Ethernet has been seen to stay silent for a whole boot in
// CI (the kernel registered eth0, nothing answered). A guest whose gokrazy
// answers but whose flipbot does not fails at once: that is flipbot's.
func boot(t *testing.T, img string, ports vm.Config, password string, fails *failures) *guest {
	t.Helper()
	const attempts = 2
	for attempt := 1; ; attempt++ {
		g, diag := powerOn(t, img, ports, password, fails, attempt)
		if diag == "" {
			return g
		}
		offNetwork := !g.gokrazyUp && g.v.Err() == nil
		select {
		case <-g.v.Done():
			offNetwork = false // QEMU itself stopped
		default:
		}
		if !offNetwork || attempt == attempts {
			t.Fatalf("flipbot's page did not answer after power-on %d: %s", attempt, diag)
		}
		note := fmt.Sprintf("%s: power-on %d never came up on the network (%s); power-cycled", t.Name(), attempt, diag)
		t.Log(note)
		fails.note(note)
		g.v.Kill()
		g.cancel()
	}
}

// powerOn starts the guest and waits for flipbot's page; when it does not
// answer, it returns what was seen of the guest (diag), else "".
func powerOn(t *testing.T, img string, ports vm.Config, password string, fails *failures, attempt int) (*guest, string) {
	t.Helper()
	serial, err := os.Create(fmt.Sprintf("%s.%d.serial.log", img, attempt))
	require.NoError(t, err)
	t.Cleanup(func() { serial.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	cfg := ports
	cfg.Image, cfg.Serial = img, serial
	g := &guest{start: time.Now(), password: password, codes: make(chan string, 16), cancel: cancel}
	g.step.start = g.start
	g.v, err = vm.Start(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		select {
		case <-g.v.Done():
		default:
			g.v.Kill()
		}
		if t.Failed() || g.diag != "" {
			b, _ := os.ReadFile(serial.Name())
			t.Logf("serial console of power-on %d (last lines):\n%s", attempt, tail(string(b), 40))
		}
		cancel()
	})
	t.Cleanup(func() {
		if t.Failed() {
			fails.add(t.Name(), g.step.String(), tail(strings.Join(g.log.Lines(), "\n"), 25))
		}
	})
	g.log = g.v.Follow(ctx, password, "/user/flipbot", "stderr", func(line string) {
		if c := vm.PairingCode(line); c != "" {
			select {
			case g.codes <- c:
			default:
			}
		}
	})
	// The page answers 30–90 s after power-on here, even under load; a
	// guest with nothing on the network by 150 s is not coming up (so
	// far it never did later), and one whose gokrazy answers gets the
	// whole 5 minutes.
	for _, wait := range []time.Duration{150 * time.Second, 150 * time.Second} {
		wctx, wcancel := context.WithTimeout(ctx, wait)
		err := vm.WaitHTTP(wctx, g.v.AppURL()+"/")
		wcancel()
		if err == nil {
			g.diag, g.gokrazyUp = "", true
			t.Logf("flipbot's page answered %.0f s after power-on", time.Since(g.start).Seconds())
			return g, ""
		}
		if g.diag = g.diagnose(ctx); !g.gokrazyUp {
			break
		}
	}
	return g, g.diag
}

// diagnose says what can be seen of a guest whose page does not answer:
// whether gokrazy's web UI answers, whether QEMU runs, QEMU's view of the
// USB bus and the network, and how much of flipbot's log was read.
func (g *guest) diagnose(ctx context.Context) string {
	var b strings.Builder
	hctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	err := vm.WaitHTTP(hctx, g.v.HTTPURL()+"/")
	cancel()
	g.gokrazyUp = err == nil
	fmt.Fprintf(&b, "gokrazy's web UI answers: %t", g.gokrazyUp)
	select {
	case <-g.v.Done():
		fmt.Fprintf(&b, "; QEMU stopped: %v", g.v.Err())
		return b.String()
	default:
		fmt.Fprintf(&b, "; QEMU runs (power-ons %d)", g.v.Boots())
	}
	for _, cmd := range []string{"info status", "info usb", "info network"} {
		mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		out, err := g.v.Monitor(mctx, cmd)
		cancel()
		if err != nil {
			out = err.Error()
		}
		fmt.Fprintf(&b, "; %s: %s", cmd, strings.Join(strings.Fields(out), " "))
	}
	fmt.Fprintf(&b, "; flipbot's log lines read: %d", len(g.log.Lines()))
	return b.String()
}

func (g *guest) pairingCode(t *testing.T, timeout time.Duration) string {
	t.Helper()
	g.step.set("the pairing code in gokrazy's log")
	select {
	case c := <-g.codes:
		return c
	case <-time.After(timeout):
		t.Fatalf("no pairing code in gokrazy's log after %s; log:\n%s", timeout, tail(strings.Join(g.log.Lines(), "\n"), 30))
		return ""
	}
}

// update runs gok update into the guest with a changed flag (make target:
// vm-update for the VM, update for the emulated Pi), and checks that the
// new build runs with it and the bot is back online with its stored token
// and no setup page.
func (g *guest) update(t *testing.T, vars []string, o *owner, target string) {
	t.Helper()
	g.step.set("make " + target)
	start := time.Now()
	took := makeTarget(t, target, append(vars, "FLIPBOT_FLAGS=-drain=9s", "UPDATE_HOST="+g.v.UpdateHost(), "APP_URL="+g.v.AppURL())...)
	t.Logf("gok update: %.0f s", took.Seconds())
	g.updated(t, o, start)
}

// updated checks the guest after a gok update begun at start: the new
// build runs with its changed flag (-drain=9s), and the bot is back online
// with its stored token and no setup page.
func (g *guest) updated(t *testing.T, o *owner, start time.Time) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	require.NoError(t, vm.WaitHTTP(ctx, g.v.AppURL()+"/"))
	svc, err := g.v.Service(ctx, g.password, "/user/flipbot")
	require.NoError(t, err)
	assert.Contains(t, svc.Args, "-drain=9s", "the updated build runs with the changed flag")
	o.waitFor("online again after the update, with the stored token", 4*time.Minute, func(s status) bool {
		return s.Online && s.Token == "stored"
	})
	_, body, err := o.get("/")
	require.NoError(t, err)
	assert.NotContains(t, body, `name="code"`, "no setup page after the update")
	t.Logf("online again %.0f s after the update began", time.Since(start).Seconds())
}

func (g *guest) powerOff(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	require.NoError(t, g.v.PowerOff(ctx, g.password), "a clean power-off")
	t.Logf("powered off in %.0f s", time.Since(start).Seconds())
}
