package hd44780

import (
	"fmt"
	"sync"
	"time"

	"periph.io/x/conn/v3/i2c"
)

// The usual backpack addresses.
const (
	Addr    uint16 = 0x27 // PCF8574
	AltAddr uint16 = 0x3F // PCF8574A
)

// Backpack bits.
const (
	bitRS        byte = 0x01
	bitEN        byte = 0x04
	bitBacklight byte = 0x08
)

// Commands.
const (
	cmdClear       byte = 0x01
	cmdEntryMode   byte = 0x06 // increment, no shift
	cmdDisplayOn   byte = 0x0C // display on, cursor off, blink off
	cmdDisplayOff  byte = 0x08
	cmdFunction4x2 byte = 0x28 // 4-bit, 2 lines (4-line modules are 2 folded lines), 5×8 dots
	cmdSetCGRAM    byte = 0x40
	cmdSetDDRAM    byte = 0x80
)

// Opts describes the module.
type Opts struct {
	// Cols and Rows: 16×2 or 20×4; zero means 16×2.
	Cols, Rows int
	// Sleep waits for the LCD's execution times; nil means time.Sleep.
	// Tests inject a recorder.
	Sleep func(time.Duration)
}

// Dev is an open LCD. Its methods are safe for concurrent use.
type Dev struct {
	bus        i2c.Bus
	addr       uint16
	cols, rows int
	sleep      func(time.Duration)

	mu        sync.Mutex
	backlight byte
	shown     []string // row contents on the LCD; nil entry = unknown
}

// rowAddr returns the DDRAM address of each row's first character.
func rowAddr() [4]byte { return [4]byte{0x00, 0x40, 0x14, 0x54} }

// New initialises the LCD at addr on bus (4-bit mode, display on, cursor
// off, cleared, backlight on).
func New(bus i2c.Bus, addr uint16, o Opts) (*Dev, error) {
	if o.Cols == 0 && o.Rows == 0 {
		o.Cols, o.Rows = 16, 2
	}
	if !(o.Cols == 16 && o.Rows == 2) && !(o.Cols == 20 && o.Rows == 4) {
		return nil, fmt.Errorf("hd44780: %dx%d not supported (16x2 or 20x4)", o.Cols, o.Rows)
	}
	if o.Sleep == nil {
		o.Sleep = time.Sleep
	}
	d := &Dev{bus: bus, addr: addr, cols: o.Cols, rows: o.Rows, sleep: o.Sleep, backlight: bitBacklight}
	d.shown = make([]string, o.Rows)
	if err := d.init(); err != nil {
		return nil, fmt.Errorf("hd44780: init at %#x: %w", addr, err)
	}
	for i := range d.shown {
		d.shown[i] = blank(d.cols)
	}
	return d, nil
}

// init is the datasheet's "initialization by instruction" for 4-bit mode.
func (d *Dev) init() error {
	d.sleep(50 * time.Millisecond) // power-on: more than 40 ms after Vcc rises
	steps := []struct {
		nibble byte
		wait   time.Duration
	}{
		{0x3, 5 * time.Millisecond},   // 8-bit mode, wait more than 4.1 ms
		{0x3, 100 * time.Microsecond}, // again, wait more than 100 µs
		{0x3, 0},
		{0x2, 0}, // 4-bit mode from here
	}
	for _, s := range steps {
		if err := d.bus.Tx(d.addr, d.nibble(s.nibble<<4, 0), nil); err != nil {
			return err
		}
		if s.wait > 0 {
			d.sleep(s.wait)
		}
	}
	for _, c := range []byte{cmdFunction4x2, cmdDisplayOff, cmdClear, cmdEntryMode, cmdDisplayOn} {
		if err := d.command(c); err != nil {
			return err
		}
	}
	return nil
}

// nibble returns the two backpack bytes that latch the high nibble of
// hi into the LCD (EN high, then low).
func (d *Dev) nibble(hi, rs byte) []byte {
	b := hi&0xF0 | rs | d.backlight
	return []byte{b | bitEN, b}
}

// byteTx returns the four backpack bytes of one LCD byte.
func (d *Dev) byteTx(v, rs byte) []byte {
	return append(d.nibble(v&0xF0, rs), d.nibble(v<<4, rs)...)
}

// command sends an instruction and waits for the slow ones.
func (d *Dev) command(c byte) error {
	if err := d.bus.Tx(d.addr, d.byteTx(c, 0), nil); err != nil {
		return err
	}
	if c == cmdClear || c == 0x02 { // clear and home take 1.52 ms
		d.sleep(2 * time.Millisecond)
	}
	return nil
}

// String describes the LCD, such as "hd44780 16x2 @0x27".
func (d *Dev) String() string {
	return fmt.Sprintf("hd44780 %dx%d @%#x", d.cols, d.rows, d.addr)
}

// Cols returns the number of characters per row.
func (d *Dev) Cols() int { return d.cols }

// Rows returns the number of rows.
func (d *Dev) Rows() int { return d.rows }

// WriteLines shows lines, one per row: each is cut or padded with spaces
// to the width; missing rows are blank. Bytes 0–7 are the custom glyphs,
// 0x20–0x7D mostly ASCII (the ROM's 0x5C is ¥ and 0x7E/0x7F arrows); other
// bytes are sent as they are. Only rows that changed are written, each as
// one I²C write.
func (d *Dev) WriteLines(lines []string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for r := 0; r < d.rows; r++ {
		line := ""
		if r < len(lines) {
			line = lines[r]
		}
		line = fit(line, d.cols)
		if d.shown[r] == line {
			continue
		}
		d.shown[r] = "" // unknown until the write succeeds
		buf := d.byteTx(cmdSetDDRAM|rowAddr()[r], 0)
		for i := 0; i < len(line); i++ {
			buf = append(buf, d.byteTx(line[i], bitRS)...)
		}
		if err := d.bus.Tx(d.addr, buf, nil); err != nil {
			return fmt.Errorf("hd44780: write row %d: %w", r, err)
		}
		d.shown[r] = line
	}
	return nil
}

// SetGlyph loads a custom character into slot 0–7 (shown by byte slot):
// eight rows of five pixels, bit 4 on the left.
func (d *Dev) SetGlyph(slot int, rows [8]byte) error {
	if slot < 0 || slot > 7 {
		return fmt.Errorf("hd44780: glyph slot %d out of 0-7", slot)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	buf := d.byteTx(cmdSetCGRAM|byte(slot)<<3, 0)
	for _, r := range rows {
		buf = append(buf, d.byteTx(r&0x1F, bitRS)...)
	}
	if err := d.bus.Tx(d.addr, buf, nil); err != nil {
		return fmt.Errorf("hd44780: glyph %d: %w", slot, err)
	}
	// The glyph bytes may be on screen: the LCD redraws them by itself.
	return nil
}

// Backlight turns the backlight on or off (it takes effect with this
// single byte and is carried by every later byte).
func (d *Dev) Backlight(on bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.backlight = 0
	if on {
		d.backlight = bitBacklight
	}
	if err := d.bus.Tx(d.addr, []byte{d.backlight}, nil); err != nil {
		return fmt.Errorf("hd44780: backlight: %w", err)
	}
	return nil
}

// Display turns the characters on or off (the RAM is kept).
func (d *Dev) Display(on bool) error {
	c := cmdDisplayOff
	if on {
		c = cmdDisplayOn
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.command(c); err != nil {
		return fmt.Errorf("hd44780: display %v: %w", on, err)
	}
	return nil
}

// Halt implements conn.Resource: it clears the LCD and turns the
// backlight off.
func (d *Dev) Halt() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.command(cmdClear); err != nil {
		return fmt.Errorf("hd44780: clear: %w", err)
	}
	for i := range d.shown {
		d.shown[i] = blank(d.cols)
	}
	d.backlight = 0
	if err := d.bus.Tx(d.addr, []byte{0}, nil); err != nil {
		return fmt.Errorf("hd44780: backlight off: %w", err)
	}
	return nil
}

func blank(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}

// fit cuts or pads s with spaces to n bytes.
func fit(s string, n int) string {
	if len(s) >= n {
		return s[:n]
	}
	return s + blank(n-len(s))
}
