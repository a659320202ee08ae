package appliance

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"reflect"
	"slices"
	"strings"
	"sync"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/gpio"
)

// errNoIndicators is DisplayPNG's error when the appliance drives no
// indicators (the PC without --leds).
var errNoIndicators = errors.New("no indicators")

// mirrorSource is what the pages' mirror needs of the indicators:
// GPIOIndicators has it.
type mirrorSource interface {
	Mirror() state.Mirror
	DisplayPNG() ([]byte, error)
}

// Mirror implements web.Backend: what the LEDs and the display show, from
// the indicators' own status (none without indicators).
func (a *app) Mirror() state.Mirror {
	if m, ok := a.cfg.Indicators.(mirrorSource); ok {
		return m.Mirror()
	}
	return state.Mirror{}
}

// DisplayPNG implements web.Backend: the display's current screen.
func (a *app) DisplayPNG() ([]byte, error) {
	if m, ok := a.cfg.Indicators.(mirrorSource); ok {
		return m.DisplayPNG()
	}
	return nil, errNoIndicators
}

// screenCache keeps the last screen rendered: it is rendered again only
// when the status shown or the display changes. mu guards every field.
type screenCache struct {
	mu      sync.Mutex
	st      gpio.Status
	d       gpio.Display
	png     []byte
	w, h    int
	version uint64
}

// render returns the PNG of st on d (gpio.Preview, the code that draws
// the real display, its first page), its size and version.
func (c *screenCache) render(st gpio.Status, d gpio.Display) ([]byte, int, int, uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.png != nil && c.d == d && reflect.DeepEqual(c.st, st) {
		return c.png, c.w, c.h, c.version, nil
	}
	var b bytes.Buffer
	if err := gpio.Preview(&b, st, d, gpio.View{}); err != nil {
		return nil, 0, 0, 0, err
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b.Bytes()))
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("display preview: %w", err)
	}
	c.st, c.d, c.png, c.w, c.h = st, d, b.Bytes(), cfg.Width, cfg.Height
	c.version++
	return c.png, c.w, c.h, c.version, nil
}

// shown returns the status the indicators show now (the one that drives
// the pins) with the pairing code hidden (hidePairingCode), the display's
// type and whether it is driven, and what was found.
func (g *GPIOIndicators) shown() (gpio.Status, gpio.Display, bool, state.Indicators) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.last
	st.Game.Legs = slices.Clone(st.Game.Legs)
	st.PairingCode = hidePairingCode(st.PairingCode)
	d, connected := gpio.DisplayNone, false
	if g.in != nil {
		d = g.in.Display()
		connected = d != gpio.DisplayNone
	}
	if !connected {
		d = gpio.DisplaySSD1306 // what the usual display would show
		if slices.Contains(gpio.Displays(), g.cfg.Display) {
			d = g.cfg.Display
		}
	}
	return st, d, connected, g.found
}

// Mirror returns what the three status LEDs and the display show, from
// the status that drives them (gpio.StatusLEDs, the pins' own mapping).
func (g *GPIOIndicators) Mirror() state.Mirror {
	st, d, connected, found := g.shown()
	var m state.Mirror
	for i, p := range gpio.StatusLEDs(st) {
		colour := [...]string{"green", "yellow", "red"}[i]
		l := state.Light{Colour: colour, Pattern: p.String()}
		for _, s := range p.Steps() {
			l.StepsMS = append(l.StepsMS, s.Milliseconds())
		}
		for _, f := range found.LEDs {
			if strings.HasPrefix(f, colour+" ") {
				l.Wired = true
			}
		}
		m.LEDs = append(m.LEDs, l)
	}
	m.Display = state.Screen{Type: string(d), Connected: connected}
	if _, w, h, v, err := g.screens.render(st, d); err == nil {
		m.Display.Width, m.Display.Height, m.Display.Version = w, h, v
	}
	return m
}

// DisplayPNG returns the display's current screen as a PNG, drawn by the
// gpio package's preview from the status the display shows (its first
// page; the display itself turns the pages).
func (g *GPIOIndicators) DisplayPNG() ([]byte, error) {
	st, d, _, _ := g.shown()
	b, _, _, _, err := g.screens.render(st, d)
	return b, err
}

// hidePairingCode returns the pairing code as the pages' picture of the
// display shows it: a dash for each character. The code proves that the
// owner sees the device; /display.png is served without a password to
// anyone who reaches the pages, so it must never carry it.
func hidePairingCode(code string) string {
	return strings.Repeat("-", len(code))
}
