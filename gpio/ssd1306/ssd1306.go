package ssd1306

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"sync"

	"periph.io/x/conn/v3/display"
	"periph.io/x/conn/v3/i2c"
)

// Controller selects the chip on the module.
type Controller int

// The supported controllers.
const (
	// SSD1306 is the chip of most 0.96" modules (128×64 or 128×32).
	SSD1306 Controller = iota
	// SH1106 is the chip of most 1.3" modules (128×64 shown out of 132
	// columns, offset 2).
	SH1106
)

// String returns "ssd1306" or "sh1106".
func (c Controller) String() string {
	switch c {
	case SSD1306:
		return "ssd1306"
	case SH1106:
		return "sh1106"
	}
	return fmt.Sprintf("controller(%d)", int(c))
}

// The usual addresses of the modules (set by a solder jumper).
const (
	Addr    uint16 = 0x3C
	AltAddr uint16 = 0x3D
)

// Width is the visible width of every supported module.
const Width = 128

// Control bytes that start every write.
const (
	ctrlCommand byte = 0x00
	ctrlData    byte = 0x40
)

// Opts describes the module.
type Opts struct {
	// Controller is the chip: SSD1306 or SH1106.
	Controller Controller
	// Height is 64 or 32 (32 only on SSD1306); 0 means 64.
	Height int
	// Contrast is the initial contrast (0x81 command); 0 means 0xCF.
	Contrast byte
}

// Dev is an open display. It implements periph's display.Drawer. Its
// methods are safe for concurrent use.
type Dev struct {
	bus    i2c.Bus
	addr   uint16
	ctrl   Controller
	height int

	mu     sync.Mutex
	pages  [][]byte // what the controller holds (valid when synced)
	synced bool     // pages mirror the controller RAM
}

var _ display.Drawer = (*Dev)(nil)

// InitSequence returns the commands New sends (after the 0x00 control
// byte) for the given module; exported for documentation and tests.
func InitSequence(o Opts) []byte {
	o = o.withDefaults()
	mux, comPins := byte(0x3F), byte(0x12)
	if o.Height == 32 {
		mux, comPins = 0x1F, 0x02
	}
	seq := []byte{
		0xAE,       // display off
		0xD5, 0x80, // clock divide ratio / oscillator frequency
		0xA8, mux, // multiplex ratio: height-1
		0xD3, 0x00, // display offset 0
		0x40, // start line 0
	}
	if o.Controller == SH1106 {
		seq = append(seq, 0xAD, 0x8B) // DC-DC (charge pump) on
	} else {
		seq = append(seq,
			0x8D, 0x14, // charge pump on
			0x20, 0x02, // page addressing mode
		)
	}
	seq = append(seq,
		0xA1,          // segment remap: column 127 is SEG0
		0xC8,          // COM scan direction: remapped (top row first)
		0xDA, comPins, // COM pins hardware configuration
		0x81, o.Contrast, // contrast
		0xD9, 0xF1, // pre-charge period
		0xDB, 0x40, // VCOMH deselect level
	)
	if o.Controller == SSD1306 {
		seq = append(seq, 0x2E) // scrolling off
	}
	return append(seq,
		0xA4, // display follows RAM
		0xA6, // normal (not inverted)
		0xAF, // display on
	)
}

func (o Opts) withDefaults() Opts {
	if o.Height == 0 {
		o.Height = 64
	}
	if o.Contrast == 0 {
		o.Contrast = 0xCF
	}
	return o
}

// New initialises the display at addr on bus and returns it; the screen
// content is undefined until the first Draw, which sends every page.
func New(bus i2c.Bus, addr uint16, o Opts) (*Dev, error) {
	o = o.withDefaults()
	switch {
	case o.Controller != SSD1306 && o.Controller != SH1106:
		return nil, fmt.Errorf("ssd1306: unknown controller %d", int(o.Controller))
	case o.Height != 64 && o.Height != 32:
		return nil, fmt.Errorf("ssd1306: height %d not supported (64 or 32)", o.Height)
	case o.Height == 32 && o.Controller == SH1106:
		return nil, fmt.Errorf("ssd1306: SH1106 modules are 128x64")
	}
	d := &Dev{bus: bus, addr: addr, ctrl: o.Controller, height: o.Height}
	d.pages = make([][]byte, o.Height/8)
	for i := range d.pages {
		d.pages[i] = make([]byte, Width)
	}
	if err := d.command(InitSequence(o)...); err != nil {
		return nil, fmt.Errorf("ssd1306: init %s at %#x: %w", o.Controller, addr, err)
	}
	return d, nil
}

// String describes the display, such as "ssd1306 128x64 @0x3c".
func (d *Dev) String() string {
	return fmt.Sprintf("%s %dx%d @%#x", d.ctrl, Width, d.height, d.addr)
}

// ColorModel implements display.Drawer: gray, lit above half intensity.
func (d *Dev) ColorModel() color.Model { return color.GrayModel }

// Bounds implements display.Drawer.
func (d *Dev) Bounds() image.Rectangle { return image.Rect(0, 0, Width, d.height) }

// Draw implements display.Drawer: it draws src (from sp) into the dstRect
// part of the screen and sends the pages that changed. A pixel is lit
// when its gray level is 128 or more.
func (d *Dev) Draw(dstRect image.Rectangle, src image.Image, sp image.Point) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	next := make([][]byte, len(d.pages))
	for i := range next {
		next[i] = bytes.Clone(d.pages[i])
	}
	r := dstRect.Intersect(d.Bounds())
	if !d.synced {
		// Unknown RAM content: the parts outside dstRect are dark.
		for i := range next {
			clear(next[i])
		}
	}
	gray := image.NewGray(r)
	draw.Draw(gray, r, src, sp.Add(r.Min.Sub(dstRect.Min)), draw.Src)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		p, bit := y/8, byte(1)<<(y%8)
		for x := r.Min.X; x < r.Max.X; x++ {
			if gray.GrayAt(x, y).Y >= 128 {
				next[p][x] |= bit
			} else {
				next[p][x] &^= bit
			}
		}
	}
	for p := range next {
		if d.synced && bytes.Equal(next[p], d.pages[p]) {
			continue
		}
		if err := d.writePage(p, next[p]); err != nil {
			d.synced = false
			return fmt.Errorf("ssd1306: write page %d: %w", p, err)
		}
		copy(d.pages[p], next[p])
	}
	d.synced = true
	return nil
}

// writePage positions the controller at the page's first visible column
// and sends its 128 bytes.
func (d *Dev) writePage(p int, data []byte) error {
	col := 0
	if d.ctrl == SH1106 {
		col = 2
	}
	if err := d.bus.Tx(d.addr, []byte{ctrlCommand, 0xB0 | byte(p), byte(col & 0x0F), 0x10 | byte(col>>4)}, nil); err != nil {
		return err
	}
	buf := make([]byte, 1+len(data))
	buf[0] = ctrlData
	copy(buf[1:], data)
	return d.bus.Tx(d.addr, buf, nil)
}

// SetContrast sets the brightness (0x00 dimmest … 0xFF brightest).
func (d *Dev) SetContrast(c byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.command(0x81, c); err != nil {
		return fmt.Errorf("ssd1306: contrast: %w", err)
	}
	return nil
}

// Sleep turns the panel off (true: 0xAE, RAM kept, a few µA) or back on
// (false: 0xAF).
func (d *Dev) Sleep(sleep bool) error {
	c := byte(0xAF)
	if sleep {
		c = 0xAE
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.command(c); err != nil {
		return fmt.Errorf("ssd1306: sleep %v: %w", sleep, err)
	}
	return nil
}

// Halt implements conn.Resource: it turns the panel off, which also
// protects it from burn-in.
func (d *Dev) Halt() error { return d.Sleep(true) }

func (d *Dev) command(cmds ...byte) error {
	return d.bus.Tx(d.addr, append([]byte{ctrlCommand}, cmds...), nil)
}
