package gpio

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"periph.io/x/conn/v3/driver/driverreg"
	pgpio "periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/i2c/i2creg"
	// The Linux back ends: the gpio character device (every Pi, also the
	// Pi 5) and sysfs (I²C buses, LEDs).
	_ "periph.io/x/host/v3/gpioioctl"
	_ "periph.io/x/host/v3/sysfs"

	"flipbot.dev/flipbot/gpio/hd44780"
	"flipbot.dev/flipbot/gpio/led"
	"flipbot.dev/flipbot/gpio/ssd1306"
)

// Open brings up the hardware described by cfg and starts showing the
// Starting status on it. It never fails: whatever is absent (no GPIO
// driver on a PC, no display on the bus, I²C not enabled) is left out and
// listed in the one log line Open writes, and with nothing present the Indicators does
// nothing. Stop it with Close or by cancelling ctx (then still call Close
// to release the devices).
func Open(ctx context.Context, cfg Config) *Indicators {
	cfg = cfg.withDefaults()
	// Everything absent or failing goes into one log line at the end.
	var absent []string
	note := func(format string, args ...any) { absent = append(absent, fmt.Sprintf(format, args...)) }
	state, err := driverreg.Init()
	if err != nil {
		note("periph drivers: %v", err)
	} else {
		for _, f := range state.Failed {
			note("periph driver %s: %v", f.D, f.Err)
		}
	}
	var d Devices
	var pinsAvailable int
	pin := func(name, role string) led.Output {
		if strings.EqualFold(name, "none") {
			return nil
		}
		p := gpioreg.ByName(name)
		if p == nil {
			note("%s LED pin %s not available", role, name)
			return nil
		}
		// Start dark; Out also makes the pin an output.
		off := pgpio.Low
		if cfg.ActiveLow {
			off = pgpio.High
		}
		if err := p.Out(off); err != nil {
			note("%s LED pin %s not usable: %v", role, name, err)
			return nil
		}
		pinsAvailable++
		if cfg.ActiveLow {
			return led.ActiveLow(p)
		}
		return p
	}
	d.Green = pin(cfg.GreenPin, "green")
	d.Yellow = pin(cfg.YellowPin, "yellow")
	d.Red = pin(cfg.RedPin, "red")

	if cfg.ACT == ACTOn || (cfg.ACT == ACTAuto && pinsAvailable == 0) {
		if act, err := openACT(cfg.ACTNames); err != nil {
			note("ACT LED: %v", err)
		} else {
			d.ACT = act
			d.Closers = append(d.Closers, act.Close)
		}
	}

	if cfg.Display != DisplayNone {
		bus, err := i2creg.Open(cfg.I2CBus)
		if err != nil {
			if cfg.I2CBus == "" {
				note("display: no I²C bus (%v)", err)
			} else {
				note("display: no I²C bus %q (%v)", cfg.I2CBus, err)
			}
		} else {
			oled, lcd, err := OpenDisplay(bus, cfg.Display, cfg.DisplayAddr)
			switch {
			case err != nil:
				note("display: %v", err)
				_ = bus.Close() // nothing was opened on it
			default:
				d.OLED, d.LCD = oled, lcd
				d.Closers = append(d.Closers, bus.Close)
			}
		}
	}
	in := New(ctx, d, cfg)
	in.found.Missing = absent
	if len(absent) > 0 {
		cfg.Log.Info("indicators", "hardware", in.Hardware(), "absent", strings.Join(absent, "; "))
	} else {
		cfg.Log.Info("indicators", "hardware", in.Hardware())
	}
	return in
}

func openACT(names []string) (*led.SysfsLED, error) {
	dir, err := led.FindSysfs(led.SysfsRoot, names...)
	if err != nil {
		return nil, err
	}
	return led.OpenSysfs(dir)
}

// ErrNoDisplay is returned by OpenDisplay when nothing answers.
var ErrNoDisplay = errors.New("no device")

// Probe reports whether a device acknowledges addr on bus, with a one-byte
// read (harmless on the OLED controllers, which return their status, and
// on the PCF8574, which returns its port).
func Probe(bus i2c.Bus, addr uint16) bool {
	var b [1]byte
	return bus.Tx(addr, nil, b[:]) == nil
}

// OpenDisplay finds and initialises the display on bus. kind DisplayAuto
// probes 0x3C and 0x3D (taken as an SSD1306 128×64: choose sh1106 or
// ssd1306-32 in the settings for those modules), then 0x27 and 0x3F (a
// 16×2 LCD unless lcd2004 is chosen). A concrete kind probes only its own
// addresses. A non-zero addr replaces the probed addresses. Exactly one of
// the returned devices is non-nil on success.
func OpenDisplay(bus i2c.Bus, kind Display, addr uint16) (*ssd1306.Dev, *hd44780.Dev, error) {
	type candidate struct {
		kind Display
		addr uint16
	}
	var cands []candidate
	oledAddrs := []uint16{ssd1306.Addr, ssd1306.AltAddr}
	lcdAddrs := []uint16{hd44780.Addr, hd44780.AltAddr}
	if addr != 0 {
		oledAddrs, lcdAddrs = []uint16{addr}, []uint16{addr}
	}
	add := func(k Display, addrs []uint16) {
		for _, a := range addrs {
			cands = append(cands, candidate{k, a})
		}
	}
	switch {
	case kind == DisplayAuto:
		add(DisplaySSD1306, oledAddrs)
		add(DisplayLCD1602, lcdAddrs)
	case kind.isOLED():
		add(kind, oledAddrs)
	case kind == DisplayLCD1602 || kind == DisplayLCD2004:
		add(kind, lcdAddrs)
	default:
		return nil, nil, fmt.Errorf("open display: unknown kind %q", kind)
	}
	for _, c := range cands {
		if !Probe(bus, c.addr) {
			continue
		}
		switch c.kind {
		case DisplaySSD1306, DisplaySSD130632, DisplaySH1106:
			o := ssd1306.Opts{}
			if c.kind == DisplaySH1106 {
				o.Controller = ssd1306.SH1106
			}
			if c.kind == DisplaySSD130632 {
				o.Height = 32
			}
			dev, err := ssd1306.New(bus, c.addr, o)
			if err != nil {
				return nil, nil, fmt.Errorf("open display: %w", err)
			}
			return dev, nil, nil
		default:
			o := hd44780.Opts{Cols: 16, Rows: 2}
			if c.kind == DisplayLCD2004 {
				o = hd44780.Opts{Cols: 20, Rows: 4}
			}
			dev, err := hd44780.New(bus, c.addr, o)
			if err != nil {
				return nil, nil, fmt.Errorf("open display: %w", err)
			}
			return nil, dev, nil
		}
	}
	var where []string
	for _, c := range cands {
		where = append(where, fmt.Sprintf("%#x", c.addr))
	}
	return nil, nil, fmt.Errorf("%w at %s on %s", ErrNoDisplay, strings.Join(where, ", "), bus)
}
