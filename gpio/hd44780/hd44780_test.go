package hd44780

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"periph.io/x/conn/v3/i2c/i2ctest"
)

// The 4-bit init by instruction (datasheet figure 24) through the
// backpack, backlight (0x08) on: each nibble is [n|BL|EN, n|BL].
var initOps = []i2ctest.IO{
	{Addr: Addr, W: []byte{0x3C, 0x38}},             // 3: 8-bit
	{Addr: Addr, W: []byte{0x3C, 0x38}},             // 3
	{Addr: Addr, W: []byte{0x3C, 0x38}},             // 3
	{Addr: Addr, W: []byte{0x2C, 0x28}},             // 2: 4-bit from here
	{Addr: Addr, W: []byte{0x2C, 0x28, 0x8C, 0x88}}, // 0x28 function set: 2 lines, 5×8
	{Addr: Addr, W: []byte{0x0C, 0x08, 0x8C, 0x88}}, // 0x08 display off
	{Addr: Addr, W: []byte{0x0C, 0x08, 0x1C, 0x18}}, // 0x01 clear
	{Addr: Addr, W: []byte{0x0C, 0x08, 0x6C, 0x68}}, // 0x06 entry mode
	{Addr: Addr, W: []byte{0x0C, 0x08, 0xCC, 0xC8}}, // 0x0C display on
}

var initWaits = []time.Duration{50 * time.Millisecond, 5 * time.Millisecond, 100 * time.Microsecond, 2 * time.Millisecond}

// wire returns the backpack bytes of one LCD byte (rs 0 command, 1 data)
// with the backlight on, written out from the bit assignment.
func wire(v byte, rs byte) []byte {
	hi, lo := v&0xF0, v<<4
	return []byte{hi | 0x0C | rs, hi | 0x08 | rs, lo | 0x0C | rs, lo | 0x08 | rs}
}

func row(addr byte, text string) []byte {
	w := wire(0x80|addr, 0)
	for i := 0; i < len(text); i++ {
		w = append(w, wire(text[i], 1)...)
	}
	return w
}

type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(d time.Duration) { s.got = append(s.got, d) }

func TestInitSequence(t *testing.T) {
	for _, addr := range []uint16{Addr, AltAddr} {
		ops := make([]i2ctest.IO, len(initOps))
		for i, op := range initOps {
			ops[i] = i2ctest.IO{Addr: addr, W: op.W}
		}
		bus := &i2ctest.Playback{Ops: ops}
		var s sleeps
		d, err := New(bus, addr, Opts{Sleep: s.sleep})
		require.NoError(t, err)
		require.NoError(t, bus.Close())
		assert.Equal(t, initWaits, s.got)
		assert.Equal(t, 16, d.Cols())
		assert.Equal(t, 2, d.Rows())
	}
}

func TestNewRejectsSizes(t *testing.T) {
	_, err := New(&i2ctest.Playback{}, Addr, Opts{Cols: 20, Rows: 2})
	assert.Error(t, err)
}

func TestNewReportsBusError(t *testing.T) {
	_, err := New(&i2ctest.Playback{DontPanic: true}, AltAddr, Opts{Sleep: func(time.Duration) {}})
	assert.ErrorContains(t, err, "hd44780: init at 0x3f")
}

func TestWriteLinesOnlyChangedRows20x4(t *testing.T) {
	ops := append([]i2ctest.IO(nil), initOps...)
	ops = append(ops,
		i2ctest.IO{Addr: Addr, W: row(0x00, "Hello               ")},
		i2ctest.IO{Addr: Addr, W: row(0x14, "third row           ")},
		// second call: only row 3 (address 0x54) changes
		i2ctest.IO{Addr: Addr, W: row(0x54, "0123456789abcdefghij")},
	)
	bus := &i2ctest.Playback{Ops: ops}
	d, err := New(bus, Addr, Opts{Cols: 20, Rows: 4, Sleep: func(time.Duration) {}})
	require.NoError(t, err)
	require.NoError(t, d.WriteLines([]string{"Hello", "", "third row"}))
	require.NoError(t, d.WriteLines([]string{"Hello", "", "third row", "0123456789abcdefghijKLMN"}))
	require.NoError(t, bus.Close())
	assert.Equal(t, "hd44780 20x4 @0x27", d.String())
}

func TestGlyphBacklightDisplayHalt(t *testing.T) {
	glyph := [8]byte{0x00, 0x0E, 0x1F, 0x1F, 0x1F, 0x0E, 0x00, 0xE0}
	g := wire(0x40|3<<3, 0) // CGRAM address of slot 3
	for _, r := range glyph {
		g = append(g, wire(r&0x1F, 1)...)
	}
	ops := append([]i2ctest.IO(nil), initOps...)
	ops = append(ops,
		i2ctest.IO{Addr: Addr, W: g},
		i2ctest.IO{Addr: Addr, W: []byte{0x00}},                   // backlight off
		i2ctest.IO{Addr: Addr, W: []byte{0x04, 0x00, 0x84, 0x80}}, // display off (0x08), backlight bit now 0
		i2ctest.IO{Addr: Addr, W: []byte{0x08}},                   // backlight on
		i2ctest.IO{Addr: Addr, W: []byte{0x0C, 0x08, 0xCC, 0xC8}}, // display on
		i2ctest.IO{Addr: Addr, W: []byte{0x0C, 0x08, 0x1C, 0x18}}, // Halt: clear
		i2ctest.IO{Addr: Addr, W: []byte{0x00}},                   // and backlight off
	)
	bus := &i2ctest.Playback{Ops: ops}
	d, err := New(bus, Addr, Opts{Sleep: func(time.Duration) {}})
	require.NoError(t, err)
	require.NoError(t, d.SetGlyph(3, glyph))
	require.NoError(t, d.Backlight(false))
	require.NoError(t, d.Display(false))
	require.NoError(t, d.Backlight(true))
	require.NoError(t, d.Display(true))
	require.NoError(t, d.Halt())
	require.NoError(t, bus.Close())
	assert.Error(t, d.SetGlyph(8, glyph))
}

func TestWriteLinesRetriesRowAfterError(t *testing.T) {
	ops := append([]i2ctest.IO(nil), initOps...)
	bus := &i2ctest.Playback{Ops: ops, DontPanic: true}
	d, err := New(bus, Addr, Opts{Sleep: func(time.Duration) {}})
	require.NoError(t, err)
	require.Error(t, d.WriteLines([]string{"x"}), "the bus refuses the row")
	bus.Ops = append(bus.Ops, i2ctest.IO{Addr: Addr, W: row(0x00, "x               ")})
	require.NoError(t, d.WriteLines([]string{"x"}), "the failed row is written again")
	require.NoError(t, bus.Close())
}
