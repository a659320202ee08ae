package vm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// qmpConn is a connection to QEMU's machine protocol (QMP, docs/interop/
// qmp-spec in QEMU's tree): JSON objects, one a line; a greeting, the
// qmp_capabilities handshake, then commands, each answered by "return" or
// "error", with asynchronous "event" objects in between.
type qmpConn struct {
	mu sync.Mutex // one exchange at a time
	c  net.Conn
	rd *bufio.Reader
}

// maxQMPLine bounds one QMP message (a human monitor answer is a few
// hundred bytes; events are small).
const maxQMPLine = 64 << 10

func dialQMP(ctx context.Context, sock string) (*qmpConn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, fmt.Errorf("qmp: %w", err)
	}
	q := &qmpConn{c: c, rd: bufio.NewReaderSize(c, 4096)}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	if _, err := q.read(); err != nil { // the greeting
		c.Close()
		return nil, err
	}
	if _, err := q.command("qmp_capabilities", nil); err != nil {
		c.Close()
		return nil, err
	}
	_ = c.SetDeadline(time.Time{})
	return q, nil
}

func (q *qmpConn) close() { q.c.Close() }

// read returns the next message.
func (q *qmpConn) read() (map[string]json.RawMessage, error) {
	var line []byte
	for {
		part, isPrefix, err := q.rd.ReadLine()
		if err != nil {
			return nil, fmt.Errorf("qmp: %w", err)
		}
		line = append(line, part...)
		if len(line) > maxQMPLine {
			return nil, errors.New("qmp: message too long")
		}
		if !isPrefix {
			break
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("qmp: %w", err)
	}
	return m, nil
}

// command runs a command and returns its "return" value, skipping events.
func (q *qmpConn) command(name string, args any) (json.RawMessage, error) {
	req := map[string]any{"execute": name}
	if args != nil {
		req["arguments"] = args
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if _, err := q.c.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("qmp: %w", err)
	}
	for {
		m, err := q.read()
		if err != nil {
			return nil, err
		}
		if r, ok := m["return"]; ok {
			return r, nil
		}
		if e, ok := m["error"]; ok {
			return nil, fmt.Errorf("qmp %s: %s", name, e)
		}
	}
}

// humanCommand runs a command of QEMU's human monitor through QMP
// (human-monitor-command) and returns its output.
func (q *qmpConn) humanCommand(line string) (string, error) {
	r, err := q.command("human-monitor-command", map[string]string{"command-line": line})
	if err != nil {
		return "", err
	}
	var out string
	if err := json.Unmarshal(r, &out); err != nil {
		return "", fmt.Errorf("qmp: %w", err)
	}
	return out, nil
}

// Monitor runs a command of QEMU's human monitor (for example "info usb")
// on the running power-on and returns its output.
func (v *VM) Monitor(ctx context.Context, line string) (string, error) {
	q, err := v.qmpConn(ctx)
	if err != nil {
		return "", err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if dl, ok := ctx.Deadline(); ok {
		_ = q.c.SetDeadline(dl)
		defer q.c.SetDeadline(time.Time{})
	}
	out, err := q.humanCommand(line)
	if err != nil {
		v.dropQMP(q)
		return "", err
	}
	return out, nil
}

// GPLEV0 is the ARM physical address of the BCM2837's GPIO pin level
// register 0 (GPIO0–31, one bit a pin, read-only): bus address 0x7E200034 in
// Broadcom's "BCM2835 ARM Peripherals" (2012), §6.1 "Register View", table
// 6-1; the BCM2837 maps the peripherals' bus range 0x7Exxxxxx at ARM
// physical 0x3Fxxxxxx (Raspberry Pi documentation, "BCM2837"). It reads a
// pin's level whatever its function, so an output reads what is driven.
const GPLEV0 = 0x3F200034

var xpRE = regexp.MustCompile(`(?m)^[0-9a-f]+:\s+0x([0-9a-f]+)\s*$`)

// ReadWord reads a 32-bit word of the guest's physical memory (a device
// register) through QEMU's monitor ("xp /1wx ADDR").
func (v *VM) ReadWord(ctx context.Context, addr uint64) (uint32, error) {
	out, err := v.Monitor(ctx, fmt.Sprintf("xp /1wx %#x", addr))
	if err != nil {
		return 0, err
	}
	m := xpRE.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("xp %#x: unexpected answer %q", addr, out)
	}
	w, err := strconv.ParseUint(m[1], 16, 32)
	if err != nil {
		return 0, fmt.Errorf("xp %#x: %w", addr, err)
	}
	return uint32(w), nil
}

// GPIOLevels reads the levels of GPIO0–31 of an emulated Pi (GPLEV0).
func (v *VM) GPIOLevels(ctx context.Context) (uint32, error) {
	if v.cfg.Machine != Pi3B {
		return 0, fmt.Errorf("GPIO levels: the %s machine has no BCM2837", v.cfg.Machine)
	}
	return v.ReadWord(ctx, GPLEV0)
}

// GPIOSample is the level of GPIO0–31 at a moment.
type GPIOSample struct {
	At     time.Time
	Levels uint32
}

// SampleGPIO reads the GPIO levels every interval for d (or until ctx
// ends) and returns the samples. A read that fails (the board is between
// power-ons) ends the sampling with the error and the samples so far.
func (v *VM) SampleGPIO(ctx context.Context, d, every time.Duration) ([]GPIOSample, error) {
	end := time.Now().Add(d)
	var out []GPIOSample
	for time.Now().Before(end) {
		l, err := v.GPIOLevels(ctx)
		if err != nil {
			return out, err
		}
		out = append(out, GPIOSample{At: time.Now(), Levels: l})
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-time.After(every):
		}
	}
	return out, nil
}

// qmpConn returns the power-on's QMP connection, dialled on first use.
func (v *VM) qmpConn(ctx context.Context) (*qmpConn, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cmd == nil {
		return nil, errors.New("qmp: the board is off")
	}
	if v.qmp != nil {
		return v.qmp, nil
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	q, err := dialQMP(dctx, filepath.Join(v.dir, "qmp.sock"))
	if err != nil {
		return nil, err
	}
	v.qmp = q
	return q, nil
}

// dropQMP forgets a connection that failed, so the next use dials again.
func (v *VM) dropQMP(q *qmpConn) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.qmp == q {
		v.qmp = nil
	}
	q.close()
}

// Pin reports whether GPIO n (0–31) was high.
func (s GPIOSample) Pin(n uint) bool { return n < 32 && s.Levels>>n&1 == 1 }
