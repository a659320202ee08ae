package ssd1306

import (
	"errors"
	"image"
	"image/color"
	"image/draw"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"periph.io/x/conn/v3/i2c/i2ctest"
	"periph.io/x/conn/v3/physic"
)

// The init sequences, after the 0x00 control byte, as the commands of the
// SSD1306 datasheet (Rev 1.1, section 9; charge pump: Rev 1.2, section 10)
// and the SH1106 datasheet give them, in the order of the hardware notes
// (shared/notes/hardware.md beside the repository, "SSD1306 / SH1106
// OLED": 128×64 "AE, D5 80, A8 3F, D3 00, 40, 8D 14, 20 02, A1, C8, DA 12,
// 81 CF, D9 F1, DB 40, 2E, A4, A6, AF"; 128×32 "A8 1F", "DA 02"; SH1106
// charge pump "AD 8B").
var (
	init128x64 = []byte{0x00, 0xAE, 0xD5, 0x80, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0x8D, 0x14, 0x20, 0x02,
		0xA1, 0xC8, 0xDA, 0x12, 0x81, 0xCF, 0xD9, 0xF1, 0xDB, 0x40, 0x2E, 0xA4, 0xA6, 0xAF}
	init128x32 = []byte{0x00, 0xAE, 0xD5, 0x80, 0xA8, 0x1F, 0xD3, 0x00, 0x40, 0x8D, 0x14, 0x20, 0x02,
		0xA1, 0xC8, 0xDA, 0x02, 0x81, 0xCF, 0xD9, 0xF1, 0xDB, 0x40, 0x2E, 0xA4, 0xA6, 0xAF}
	initSH1106 = []byte{0x00, 0xAE, 0xD5, 0x80, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0xAD, 0x8B,
		0xA1, 0xC8, 0xDA, 0x12, 0x81, 0xCF, 0xD9, 0xF1, 0xDB, 0x40, 0xA4, 0xA6, 0xAF}
)

// pageOps returns the two writes of one page: position, then data.
func pageOps(addr uint16, page byte, col byte, data []byte) []i2ctest.IO {
	return []i2ctest.IO{
		{Addr: addr, W: []byte{0x00, 0xB0 | page, col & 0x0F, 0x10 | col>>4}},
		{Addr: addr, W: append([]byte{0x40}, data...)},
	}
}

func zeros(n int) []byte { return make([]byte, n) }

func TestInitSequences(t *testing.T) {
	tests := []struct {
		name string
		opts Opts
		addr uint16
		want []byte
		size image.Point
	}{
		{"ssd1306 128x64", Opts{}, Addr, init128x64, image.Pt(128, 64)},
		{"ssd1306 128x32", Opts{Height: 32}, AltAddr, init128x32, image.Pt(128, 32)},
		{"sh1106 128x64", Opts{Controller: SH1106}, Addr, initSH1106, image.Pt(128, 64)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bus := &i2ctest.Playback{Ops: []i2ctest.IO{{Addr: tt.addr, W: tt.want}}}
			d, err := New(bus, tt.addr, tt.opts)
			require.NoError(t, err)
			require.NoError(t, bus.Close())
			assert.Equal(t, tt.size, d.Bounds().Size())
			assert.Equal(t, tt.want[1:], InitSequence(tt.opts))
		})
	}
}

func TestNewRejectsBadOpts(t *testing.T) {
	for _, o := range []Opts{{Height: 48}, {Controller: SH1106, Height: 32}, {Controller: 7}} {
		_, err := New(&i2ctest.Playback{}, Addr, o)
		assert.Error(t, err, "%+v", o)
	}
}

func TestNewReportsBusError(t *testing.T) {
	bus := &i2ctest.Playback{DontPanic: true} // no op expected: every Tx fails
	_, err := New(bus, Addr, Opts{})
	assert.ErrorContains(t, err, "ssd1306: init ssd1306 at 0x3c")
}

// TestDrawSendsOnlyChangedPages: the first frame sends every page, the
// next only the page where a pixel changed, an equal frame nothing.
func TestDrawSendsOnlyChangedPages(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 128, 64))
	img.SetGray(0, 0, color.Gray{255})  // page 0, column 0, bit 0
	img.SetGray(5, 15, color.Gray{255}) // page 1, column 5, bit 7
	page0 := zeros(128)
	page0[0] = 0x01
	page1 := zeros(128)
	page1[5] = 0x80

	ops := []i2ctest.IO{{Addr: Addr, W: init128x64}}
	ops = append(ops, pageOps(Addr, 0, 0, page0)...)
	ops = append(ops, pageOps(Addr, 1, 0, page1)...)
	for p := byte(2); p < 8; p++ {
		ops = append(ops, pageOps(Addr, p, 0, zeros(128))...)
	}
	// Second frame: a pixel in page 6 (row 50, column 127).
	page6 := zeros(128)
	page6[127] = 0x04
	ops = append(ops, pageOps(Addr, 6, 0, page6)...)

	bus := &i2ctest.Playback{Ops: ops}
	d, err := New(bus, Addr, Opts{})
	require.NoError(t, err)
	require.NoError(t, d.Draw(d.Bounds(), img, image.Point{}))
	img.SetGray(127, 50, color.Gray{200})
	require.NoError(t, d.Draw(d.Bounds(), img, image.Point{}))
	require.NoError(t, d.Draw(d.Bounds(), img, image.Point{}), "an equal frame sends nothing")
	require.NoError(t, bus.Close())
}

func TestSH1106PagesStartAtColumn2(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 128, 64))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	ops := []i2ctest.IO{{Addr: Addr, W: initSH1106}}
	full := make([]byte, 128)
	for i := range full {
		full[i] = 0xFF
	}
	for p := byte(0); p < 8; p++ {
		ops = append(ops, pageOps(Addr, p, 2, full)...)
	}
	bus := &i2ctest.Playback{Ops: ops}
	d, err := New(bus, Addr, Opts{Controller: SH1106})
	require.NoError(t, err)
	require.NoError(t, d.Draw(d.Bounds(), img, image.Point{}))
	require.NoError(t, bus.Close())
}

func Test128x32HasFourPages(t *testing.T) {
	rec := &i2ctest.Record{}
	d, err := New(rec, Addr, Opts{Height: 32})
	require.NoError(t, err)
	require.NoError(t, d.Draw(d.Bounds(), image.NewGray(d.Bounds()), image.Point{}))
	require.Len(t, rec.Ops, 1+4*2)
	assert.Equal(t, []byte{0x00, 0xB3, 0x00, 0x10}, rec.Ops[7].W)
	assert.Equal(t, "ssd1306 128x32 @0x3c", d.String())
}

func TestDrawPartialRectangle(t *testing.T) {
	rec := &i2ctest.Record{}
	d, err := New(rec, Addr, Opts{})
	require.NoError(t, err)
	// A white 8×8 square drawn at (8, 8) on a screen not yet drawn: the
	// rest is dark, so one page has 8 lit columns.
	require.NoError(t, d.Draw(image.Rect(8, 8, 16, 16), image.White, image.Point{}))
	require.Len(t, rec.Ops, 1+8*2)
	want := zeros(128)
	for x := 8; x < 16; x++ {
		want[x] = 0xFF
	}
	assert.Equal(t, append([]byte{0x40}, want...), rec.Ops[4].W)
}

// failingBus fails every Tx after the first n.
type failingBus struct {
	i2ctest.Record
	n int
}

func (b *failingBus) Tx(addr uint16, w, r []byte) error {
	if b.n == 0 {
		return errors.New("remote I/O error")
	}
	b.n--
	return b.Record.Tx(addr, w, r)
}

func (b *failingBus) SetSpeed(physic.Frequency) error { return nil }

func TestDrawErrorResendsEverything(t *testing.T) {
	bus := &failingBus{n: 1 + 3} // init, then page 0 and half of page 1
	d, err := New(bus, Addr, Opts{})
	require.NoError(t, err)
	img := image.NewGray(d.Bounds())
	assert.ErrorContains(t, d.Draw(d.Bounds(), img, image.Point{}), "write page 1")
	bus.n = 100
	bus.Ops = nil
	require.NoError(t, d.Draw(d.Bounds(), img, image.Point{}))
	assert.Len(t, bus.Ops, 16, "after an error the next frame is sent whole")
}

func TestContrastAndSleep(t *testing.T) {
	bus := &i2ctest.Playback{Ops: []i2ctest.IO{
		{Addr: Addr, W: init128x64},
		{Addr: Addr, W: []byte{0x00, 0x81, 0x10}},
		{Addr: Addr, W: []byte{0x00, 0xAE}},
		{Addr: Addr, W: []byte{0x00, 0xAF}},
		{Addr: Addr, W: []byte{0x00, 0xAE}},
	}}
	d, err := New(bus, Addr, Opts{})
	require.NoError(t, err)
	require.NoError(t, d.SetContrast(0x10))
	require.NoError(t, d.Sleep(true))
	require.NoError(t, d.Sleep(false))
	require.NoError(t, d.Halt())
	require.NoError(t, bus.Close())
}
