package led

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"periph.io/x/conn/v3/gpio"
)

// SysfsRoot is where Linux lists the LEDs it drives.
const SysfsRoot = "/sys/class/leds"

// SysfsLED is an LED driven by the kernel's LED class, such as the
// Raspberry Pi's green ACT LED at /sys/class/leds/ACT. Opening it sets
// its trigger to "none" (otherwise the kernel keeps blinking it for SD
// card activity); Close puts the previous trigger back.
type SysfsLED struct {
	dir     string
	trigger string // the trigger to restore
	max     string // max_brightness as written to brightness for "on"

	mu     sync.Mutex
	closed bool
}

// FindSysfs returns the directory of the first of names that exists under
// root (normally SysfsRoot), such as FindSysfs(SysfsRoot, "ACT", "led0").
// Which LEDs exist differs by Pi model and kernel.
func FindSysfs(root string, names ...string) (string, error) {
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, `/\`) || n == "." || n == ".." {
			continue
		}
		dir := filepath.Join(root, n)
		if _, err := os.Stat(filepath.Join(dir, "brightness")); err == nil {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no LED named %s under %s", strings.Join(names, " or "), root)
}

// OpenSysfs takes over the LED in dir (a /sys/class/leds/NAME directory):
// it remembers the current trigger and sets it to "none".
func OpenSysfs(dir string) (*SysfsLED, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "trigger"))
	if err != nil {
		return nil, fmt.Errorf("open LED %s: %w", dir, err)
	}
	trig, err := ParseTrigger(string(raw))
	if err != nil {
		return nil, fmt.Errorf("open LED %s: %w", dir, err)
	}
	max := "1"
	if b, err := os.ReadFile(filepath.Join(dir, "max_brightness")); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
			max = strconv.Itoa(n)
		}
	}
	l := &SysfsLED{dir: dir, trigger: trig, max: max}
	if err := l.writeFile("trigger", "none"); err != nil {
		return nil, fmt.Errorf("open LED %s: %w", dir, err)
	}
	return l, nil
}

// ParseTrigger returns the active trigger from the content of a LED's
// trigger file, which lists every trigger with the active one in square
// brackets: "none [mmc0] timer heartbeat".
func ParseTrigger(s string) (string, error) {
	for _, f := range strings.Fields(s) {
		if len(f) > 2 && f[0] == '[' && f[len(f)-1] == ']' {
			return f[1 : len(f)-1], nil
		}
	}
	return "", errors.New("no active trigger in trigger file")
}

// String returns the LED's name, such as "ACT".
func (l *SysfsLED) String() string { return filepath.Base(l.dir) }

// Trigger returns the trigger that Close restores.
func (l *SysfsLED) Trigger() string { return l.trigger }

// Out lights the LED (High) or darkens it (Low).
func (l *SysfsLED) Out(level gpio.Level) error {
	v := "0"
	if level {
		v = l.max
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("LED %s: closed", l)
	}
	return l.writeFile("brightness", v)
}

// Close gives the LED back to the kernel: it restores the trigger that
// was active at OpenSysfs. Calling Close twice is harmless.
func (l *SysfsLED) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if err := l.writeFile("trigger", l.trigger); err != nil {
		return fmt.Errorf("restore LED %s trigger %q: %w", l, l.trigger, err)
	}
	return nil
}

func (l *SysfsLED) writeFile(name, v string) error {
	f, err := os.OpenFile(filepath.Join(l.dir, name), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(v)
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	return cerr
}
