// Package vm boots a gokrazy arm64 image under qemu-system-aarch64 and talks
// to it from the host the way an owner would: it forwards the device's
// gokrazy web UI (:80) and flipbot's pages (:8080) to loopback, follows a
// service's log over gokrazy's HTTP log API, reads the emulated SoC's GPIO
// levels (the LEDs) over QEMU's machine protocol, and powers the device off
// cleanly through gokrazy's /poweroff.
//
// Two machines (Machine):
//   - Virt, QEMU's generic board, for the VM variant of the image
//     (gokrazy's kernel.arm64 under UEFI, virtio disk, e1000); virt.go.
//   - Pi3B, QEMU's model of a Raspberry Pi 3 Model B, for the image a user
//     flashes, unchanged: QEMU cannot run the Pi's GPU firmware, so this
//     package stands in for it and, at every power-on, takes the kernel,
//     the device tree and cmdline.txt from the card's boot partition as the
//     firmware would (pi3b.go), and power-cycles the board when the guest
//     reboots (QEMU's Pi has no working restart).
//
// Software emulation is used on x86 hosts; KVM for Virt when the host is
// arm64 and /dev/kvm is usable.
//
// Files: vm.go ([VM], [Config], [Start]: the supervisor, one QEMU process
// per power-on; the log follower), virt.go and pi3b.go (each machine's
// arguments), qmp.go (QEMU's machine protocol: [VM.GPIOLevels]), sntp.go
// ([SNTPServer], time for a guest with no clock), events.go (the device's
// log read back: [ReadEvents], [PairingCode]), proc_unix.go. It imports
// gokrazy/disk (the card's partitions and files) and nothing else of the
// module.
package vm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"flipbot.dev/flipbot/gokrazy/disk"
)

// Machine is the board QEMU emulates.
type Machine string

// The machines.
const (
	// Virt is QEMU's generic arm64 board (the VM variant of the image).
	Virt Machine = "virt"
	// Pi3B is QEMU's raspi3b: a Raspberry Pi 3 Model B (the Pi image).
	Pi3B Machine = "raspi3b"
)

// Config describes a VM.
type Config struct {
	// Machine is the board (default Virt).
	Machine Machine
	// Image is the raw disk image (read and written by the guest).
	Image string
	// HTTPPort and AppPort are loopback ports forwarded to the guest's
	// :80 (gokrazy's web UI, also `gok update`'s target) and :8080
	// (flipbot's pages); 0 picks free ports.
	HTTPPort, AppPort int
	// CPUs and MemoryMiB size a Virt guest (defaults 2 and 1024); a Pi 3B
	// has 4 cores and 1 GiB.
	CPUs, MemoryMiB int
	// Serial receives the guest's serial console (Virt: ttyAMA0; Pi3B: the
	// mini UART, ttyS1) and QEMU's own messages; nil discards.
	Serial io.Writer
	// QEMU is the qemu-system-aarch64 binary (default from PATH).
	QEMU string
	// TimeServer answers SNTP on the host's loopback port 123, which the
	// guest reaches as 10.0.2.2 through QEMU's user network: a Pi has no
	// clock, and an offline guest no other time source. Port 123 needs
	// root (or CAP_NET_BIND_SERVICE); without it the host's time is written
	// into gokrazy's ntp time file on /perm before each power-on instead
	// (gokrazy's ntp sets the clock from it at start), and Warnings says
	// so.
	TimeServer bool
	// Log receives the supervisor's events (power cycles); nil discards.
	Log *slog.Logger
}

// VM is a running guest: one QEMU process per power-on, started again by
// the supervisor when a Pi 3B reboots.
type VM struct {
	cfg  Config
	dir  string // boot files and the QMP socket
	log  *slog.Logger
	done chan struct{}
	err  error // after done

	seedClock bool // write the host's time to /perm before each power-on

	mu       sync.Mutex
	cmd      *exec.Cmd // the running QEMU
	qmp      *qmpConn  // connected on first use, per power-on
	boots    int
	stopping bool
	warnings []string
}

// HTTPURL is the base URL of the guest's gokrazy web UI on loopback.
func (v *VM) HTTPURL() string { return fmt.Sprintf("http://127.0.0.1:%d", v.cfg.HTTPPort) }

// AppURL is the base URL of flipbot's pages on loopback.
func (v *VM) AppURL() string { return fmt.Sprintf("http://127.0.0.1:%d", v.cfg.AppPort) }

// UpdateHost is the instance's Update.Hostname for `gok update` to reach
// this guest.
func (v *VM) UpdateHost() string { return fmt.Sprintf("localhost:%d", v.cfg.HTTPPort) }

// Ports fills in free loopback ports for the zero ports of cfg.
func (cfg *Config) Ports() error {
	for _, p := range []*int{&cfg.HTTPPort, &cfg.AppPort} {
		if *p != 0 {
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("pick a free port: %w", err)
		}
		*p = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	return nil
}

// hostfwd is QEMU's user network with the two forwarded ports.
func (cfg Config) hostfwd(id string) string {
	return fmt.Sprintf("user,id=%s,hostfwd=tcp:127.0.0.1:%d-:80,hostfwd=tcp:127.0.0.1:%d-:8080", id, cfg.HTTPPort, cfg.AppPort)
}

// Start boots the guest. It runs until the guest powers off, ctx ends
// (QEMU is killed: prefer PowerOff), or Kill.
func Start(ctx context.Context, cfg Config) (*VM, error) {
	if err := cfg.Ports(); err != nil {
		return nil, err
	}
	if cfg.Machine == "" {
		cfg.Machine = Virt
	}
	if cfg.QEMU == "" {
		cfg.QEMU = "qemu-system-aarch64"
	}
	if _, err := exec.LookPath(cfg.QEMU); err != nil {
		return nil, fmt.Errorf("%s not found (Debian: apt-get install qemu-system-arm qemu-efi-aarch64): %w", cfg.QEMU, err)
	}
	img, err := filepath.Abs(cfg.Image)
	if err != nil {
		return nil, err
	}
	cfg.Image = img
	switch cfg.Machine {
	case Virt:
		if _, err := os.Stat(Firmware); err != nil {
			return nil, fmt.Errorf("UEFI firmware missing (Debian: apt-get install qemu-efi-aarch64): %w", err)
		}
	case Pi3B:
		if err := checkSDSize(img); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown machine %q (%s or %s)", cfg.Machine, Virt, Pi3B)
	}
	dir, err := os.MkdirTemp("", "flipbot-vm-")
	if err != nil {
		return nil, fmt.Errorf("vm: %w", err)
	}
	v := &VM{cfg: cfg, dir: dir, log: cfg.Log, done: make(chan struct{})}
	if v.log == nil {
		v.log = slog.New(slog.DiscardHandler)
	}
	if cfg.TimeServer {
		ts, err := ListenSNTP("127.0.0.1:123", time.Now)
		if err != nil {
			v.seedClock = true
			v.warnings = append(v.warnings, fmt.Sprintf("no time server for the guest (%v): the host's time is written to gokrazy's ntp time file on /perm at each power-on instead", err))
		} else {
			go func() {
				<-v.done
				ts.Close()
			}()
			go ts.Serve()
		}
	}
	first, err := v.powerOn(ctx)
	if err != nil {
		close(v.done)
		os.RemoveAll(dir)
		return nil, err
	}
	go v.supervise(ctx, first)
	return v, nil
}

// power is what the guest's console says at the end of a power-on.
type power int

const (
	restart power = iota + 1 // the kernel could not restart: power-cycle
	halted                   // the kernel halted: a power-off
)

// powerOn starts QEMU for one power-on of the board. The returned channel
// receives what the console says when the guest halts.
func (v *VM) powerOn(ctx context.Context) (chan power, error) {
	if v.seedClock {
		if err := seedClock(ctx, v.cfg.Image, time.Now()); err != nil {
			v.log.Warn("the guest's clock could not be seeded", "err", err)
		}
	}
	var args []string
	switch v.cfg.Machine {
	case Pi3B:
		boot, err := readPiBoot(v.cfg.Image, v.dir)
		if err != nil {
			return nil, err
		}
		args = v.cfg.piArgs(boot)
	default:
		args = v.cfg.Args(KVMUsable())
	}
	sock := filepath.Join(v.dir, "qmp.sock")
	_ = os.Remove(sock)
	args = append(args, "-qmp", "unix:"+sock+",server=on,wait=off")
	cmd := exec.CommandContext(ctx, v.cfg.QEMU, args...)
	events := make(chan power, 1)
	out := &consoleWatch{w: v.cfg.Serial, events: events}
	cmd.Stdout, cmd.Stderr = out, out
	// The guest must not see the terminal's Ctrl-C: the owner's Ctrl-C is
	// turned into a clean power-off by the caller.
	cmd.SysProcAttr = newProcessGroup()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start qemu: %w", err)
	}
	v.mu.Lock()
	v.cmd, v.qmp = cmd, nil
	v.boots++
	if v.stopping { // Kill came between two power-ons
		_ = cmd.Process.Kill()
	}
	v.mu.Unlock()
	return events, nil
}

// ntpTimeFile is where gokrazy's ntp keeps the time at shutdown and sets
// the clock from at start, before it asks a server (cmd/ntp/ntp.go in
// github.com/gokrazy/gokrazy: "ntp-time-at-last-shutdown" in its working
// directory, /perm/home/ntp).
const ntpTimeFile = "home/ntp/ntp-time-at-last-shutdown"

// seedClock writes now into gokrazy's ntp time file on the image's /perm
// (the guest is off: nothing has it mounted).
func seedClock(ctx context.Context, img string, now time.Time) error {
	perm, err := disk.PartitionOf(img, disk.PermPartition)
	if err != nil {
		return err
	}
	b, err := now.UTC().MarshalText()
	if err != nil {
		return err
	}
	return disk.WriteFile(ctx, perm, ntpTimeFile, b, 0o600, 0o755)
}

// supervise waits for each power-on to end, and powers the board on again
// when the guest asked for a restart that the machine cannot do.
func (v *VM) supervise(ctx context.Context, events chan power) {
	defer close(v.done)
	defer os.RemoveAll(v.dir)
	for {
		v.mu.Lock()
		cmd := v.cmd
		v.mu.Unlock()
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
		again := false
		select {
		case err = <-exited:
		case ev := <-events:
			// QEMU keeps running a halted board: switch it off.
			_ = cmd.Process.Kill()
			<-exited
			again = ev == restart
		}
		v.mu.Lock()
		if v.qmp != nil {
			v.qmp.close()
		}
		v.cmd, v.qmp = nil, nil
		stopping := v.stopping
		v.mu.Unlock()
		if !again || stopping || ctx.Err() != nil {
			v.err = err
			return
		}
		v.log.Info("the guest restarted: power-cycling the board")
		if events, err = v.powerOn(ctx); err != nil {
			v.err = err
			return
		}
	}
}

// consoleWatch passes QEMU's output on and watches the guest's console
// for the kernel's last words: arm64's machine_restart prints "Reboot
// failed -- System halted" when no restart handler worked (a Pi 3B under
// QEMU without its watchdog driver; also after a panic), and kernel_halt
// "reboot: System halted" (Linux 6.12: "reboot: Power off not available:
// System halted instead", a power-off on a board that cannot power off,
// which kernel/reboot.c turns into a halt).
type consoleWatch struct {
	w      io.Writer
	events chan power
	line   []byte
}

func (c *consoleWatch) Write(p []byte) (int, error) {
	for _, b := range p {
		if b != '\n' {
			if len(c.line) < 4096 {
				c.line = append(c.line, b)
			}
			continue
		}
		switch {
		case bytes.Contains(c.line, []byte("Reboot failed -- System halted")):
			c.send(restart)
		case bytes.Contains(c.line, []byte("reboot: ")) && (bytes.Contains(c.line, []byte("System halted")) || bytes.Contains(c.line, []byte("Power down"))):
			c.send(halted)
		}
		c.line = c.line[:0]
	}
	if c.w != nil {
		_, _ = c.w.Write(p)
	}
	return len(p), nil
}

func (c *consoleWatch) send(p power) {
	select {
	case c.events <- p:
	default:
	}
}

// Boots counts the power-ons so far: 1 after Start, and a Pi 3B adds one
// for each reboot.
func (v *VM) Boots() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.boots
}

// Warnings lists what the VM could not set up (it runs without it).
func (v *VM) Warnings() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.warnings...)
}

// Done is closed when the board is off for good: the guest powered off,
// QEMU failed, or Kill.
func (v *VM) Done() <-chan struct{} { return v.done }

// Err is QEMU's exit error, after Done.
func (v *VM) Err() error { return v.err }

// Kill stops QEMU at once, for good.
func (v *VM) Kill() {
	v.mu.Lock()
	v.stopping = true
	if v.cmd != nil {
		_ = v.cmd.Process.Kill()
	}
	v.mu.Unlock()
	<-v.done
}

// PowerOff asks gokrazy to stop every service (SIGTERM, as on a real power
// off) and power off, then waits for the board to be off; QEMU is killed if
// that has not happened by the time ctx ends.
func (v *VM) PowerOff(ctx context.Context, password string) error {
	v.mu.Lock()
	v.stopping = true
	v.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.HTTPURL()+"/poweroff", strings.NewReader(url.Values{"wait_per_signal": {"10s"}}.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("gokrazy", password)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("poweroff: %s", resp.Status)
		}
	}
	if err != nil {
		v.Kill()
		return fmt.Errorf("clean power-off failed, qemu killed: %w", err)
	}
	select {
	case <-v.done:
		return nil
	case <-ctx.Done():
		v.Kill()
		return fmt.Errorf("guest did not power off: %w", ctx.Err())
	}
}

// WaitHTTP polls url until it answers with any HTTP status, or ctx ends.
func WaitHTTP(ctx context.Context, url string) error {
	c := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer: %w", url, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Password returns the gokrazy web UI password that gok baked into an
// instance with no Update.HTTPPassword: the per-host file
// ~/.config/gokrazy/hosts/HOST/http-password.txt, else
// ~/.config/gokrazy/http-password.txt.
func Password(host string) (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("gokrazy password: %w", err)
	}
	for _, p := range []string{
		filepath.Join(dir, "gokrazy", "hosts", host, "http-password.txt"),
		filepath.Join(dir, "gokrazy", "http-password.txt"),
	} {
		b, err := os.ReadFile(p)
		if err == nil {
			return strings.TrimSpace(string(b)), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("gokrazy password: %w", err)
		}
	}
	return "", errors.New("gokrazy password: no http-password.txt under " + filepath.Join(dir, "gokrazy") + " (gok creates it at the first build)")
}

// LogFollower follows one stream of a gokrazy service's log.
type LogFollower struct {
	mu    sync.Mutex
	lines []string
}

// Follow reads the stream ("stdout" or "stderr") of the service at path
// (e.g. /user/flipbot) over gokrazy's /log API until ctx ends, reconnecting
// when the guest restarts. Each line is passed to onLine and kept.
func (v *VM) Follow(ctx context.Context, password, path, stream string, onLine func(string)) *LogFollower {
	f := &LogFollower{}
	go func() {
		for ctx.Err() == nil {
			_ = v.followOnce(ctx, password, path, stream, func(l string) {
				f.mu.Lock()
				f.lines = append(f.lines, l)
				f.mu.Unlock()
				if onLine != nil {
					onLine(l)
				}
			})
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	return f
}

// Lines returns the lines read so far.
func (f *LogFollower) Lines() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lines...)
}

func (v *VM) followOnce(ctx context.Context, password, path, stream string, onLine func(string)) error {
	q := url.Values{"path": {path}, "stream": {stream}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.HTTPURL()+"/log?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	req.SetBasicAuth("gokrazy", password)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("log: %s", resp.Status)
	}
	return ReadEvents(resp.Body, onLine)
}

// Service is what gokrazy's status API reports of one service.
type Service struct {
	Stopped   bool
	StartTime time.Time
	Pid       int
	Args      []string
}

// Service reads the status of the service at path (e.g. /user/flipbot)
// from gokrazy's web UI.
func (v *VM) Service(ctx context.Context, password, path string) (Service, error) {
	var s Service
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.HTTPURL()+"/status?"+url.Values{"path": {path}}.Encode(), nil)
	if err != nil {
		return s, err
	}
	req.SetBasicAuth("gokrazy", password)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return s, fmt.Errorf("service status: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("service status: %s", resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&s); err != nil {
		return s, fmt.Errorf("service status: %w", err)
	}
	return s, nil
}
