// Package vm boots a gokrazy arm64 image under qemu-system-aarch64 and talks
// to it from the host the way an owner would: it forwards the device's
// gokrazy web UI (:80) and flipbot's pages (:8080) to loopback, follows a
// service's log over gokrazy's HTTP log API, and powers the device off
// cleanly through gokrazy's /poweroff.
//
// Software emulation is used on x86 hosts; KVM when the host is arm64 and
// /dev/kvm is usable.
//
// Files: vm.go ([VM], [Config], [Start], the log follower), events.go
// (the device's log read back: [ReadEvents], [PairingCode]),
// proc_unix.go. It imports nothing of the module.
package vm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Firmware is the UEFI firmware of Debian's qemu-efi-aarch64 package.
const Firmware = "/usr/share/qemu-efi-aarch64/QEMU_EFI.fd"

// Config describes a VM.
type Config struct {
	// Image is the raw disk image (read and written by the guest).
	Image string
	// HTTPPort and AppPort are loopback ports forwarded to the guest's
	// :80 (gokrazy's web UI, also `gok update`'s target) and :8080
	// (flipbot's pages); 0 picks free ports.
	HTTPPort, AppPort int
	// CPUs and MemoryMiB size the guest (defaults 2 and 1024).
	CPUs, MemoryMiB int
	// Serial receives the guest's serial console (ttyAMA0); nil discards.
	Serial io.Writer
	// QEMU is the qemu-system-aarch64 binary (default from PATH).
	QEMU string
}

// VM is a running guest.
type VM struct {
	cfg  Config
	cmd  *exec.Cmd
	done chan struct{}
	err  error
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

// Args returns qemu's arguments for cfg (ports must be set).
func (cfg Config) Args(kvm bool) []string {
	cpus, mem := cfg.CPUs, cfg.MemoryMiB
	if cpus == 0 {
		cpus = 2
	}
	if mem == 0 {
		mem = 1024
	}
	machine := []string{"-machine", "virt,highmem=off", "-cpu", "cortex-a72"}
	if kvm {
		machine = []string{"-machine", "virt", "-accel", "kvm", "-cpu", "host"}
	}
	return append(machine,
		"-smp", fmt.Sprint(cpus), "-m", fmt.Sprint(mem),
		"-bios", Firmware,
		"-drive", "file="+cfg.Image+",format=raw,if=virtio",
		// gokrazy feeds a watchdog; a hung guest resets.
		"-device", "i6300esb", "-action", "watchdog=reset",
		// romfile= avoids needing the ipxe ROMs.
		"-device", "e1000,netdev=net0,romfile=",
		"-netdev", fmt.Sprintf("user,id=net0,hostfwd=tcp:127.0.0.1:%d-:80,hostfwd=tcp:127.0.0.1:%d-:8080", cfg.HTTPPort, cfg.AppPort),
		"-display", "none", "-monitor", "none", "-serial", "stdio",
	)
}

// KVMUsable reports whether qemu can use KVM for an arm64 guest here.
func KVMUsable() bool {
	if runtime.GOARCH != "arm64" {
		return false
	}
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// Start boots the guest. It runs until the guest powers off, ctx ends
// (qemu is killed: prefer PowerOff), or Kill.
func Start(ctx context.Context, cfg Config) (*VM, error) {
	if err := cfg.Ports(); err != nil {
		return nil, err
	}
	if cfg.QEMU == "" {
		cfg.QEMU = "qemu-system-aarch64"
	}
	if _, err := exec.LookPath(cfg.QEMU); err != nil {
		return nil, fmt.Errorf("%s not found (Debian: apt-get install qemu-system-arm qemu-efi-aarch64): %w", cfg.QEMU, err)
	}
	if _, err := os.Stat(Firmware); err != nil {
		return nil, fmt.Errorf("UEFI firmware missing (Debian: apt-get install qemu-efi-aarch64): %w", err)
	}
	img, err := filepath.Abs(cfg.Image)
	if err != nil {
		return nil, err
	}
	cfg.Image = img
	cmd := exec.CommandContext(ctx, cfg.QEMU, cfg.Args(KVMUsable())...)
	if cfg.Serial != nil {
		cmd.Stdout = cfg.Serial
		cmd.Stderr = cfg.Serial
	}
	// The guest must not see the terminal's Ctrl-C: the owner's Ctrl-C is
	// turned into a clean power-off by the caller.
	cmd.SysProcAttr = newProcessGroup()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start qemu: %w", err)
	}
	v := &VM{cfg: cfg, cmd: cmd, done: make(chan struct{})}
	go func() {
		v.err = cmd.Wait()
		close(v.done)
	}()
	return v, nil
}

// Done is closed when qemu has exited.
func (v *VM) Done() <-chan struct{} { return v.done }

// Err is qemu's exit error, after Done.
func (v *VM) Err() error { return v.err }

// Kill stops qemu at once.
func (v *VM) Kill() {
	_ = v.cmd.Process.Kill()
	<-v.done
}

// PowerOff asks gokrazy to stop every service (SIGTERM, as on a real power
// off) and power off, then waits for qemu to exit; qemu is killed if that
// has not happened by the time ctx ends.
func (v *VM) PowerOff(ctx context.Context, password string) error {
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
