package gpio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/i2c/i2ctest"
	"periph.io/x/conn/v3/physic"

	"flipbot.dev/flipbot/gpio/hd44780"
	"flipbot.dev/flipbot/gpio/led"
	"flipbot.dev/flipbot/gpio/ssd1306"
	"flipbot.dev/flipbot/internal/clock/clocktest"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// levelLED records the last level written.
type levelLED struct {
	mu     sync.Mutex
	writes []gpio.Level
}

func (l *levelLED) Out(v gpio.Level) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, v)
	return nil
}

func (l *levelLED) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.writes)
}

// bus is an i2c.Bus that records writes and answers reads (probes) only
// at the addresses in present.
type bus struct {
	i2ctest.Record
	present map[uint16]bool
	fail    bool
}

func (b *bus) Tx(addr uint16, w, r []byte) error {
	if !b.present[addr] {
		return errors.New("remote I/O error")
	}
	b.Lock()
	fail := b.fail
	b.Unlock()
	if fail {
		return errors.New("bus broken")
	}
	if len(r) > 0 {
		clear(r)
		b.Lock()
		b.Ops = append(b.Ops, i2ctest.IO{Addr: addr, R: make([]byte, len(r))})
		b.Unlock()
		return nil
	}
	return b.Record.Tx(addr, w, nil)
}

func (b *bus) SetSpeed(physic.Frequency) error { return nil }
func (b *bus) String() string                  { return "testbus" }

func (b *bus) writes() [][]byte {
	b.Lock()
	defer b.Unlock()
	var w [][]byte
	for _, op := range b.Ops {
		if op.W != nil {
			w = append(w, op.W)
		}
	}
	return w
}

func (b *bus) has(w []byte) bool {
	for _, x := range b.writes() {
		if bytes.Equal(x, w) {
			return true
		}
	}
	return false
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestNoHardwareIsANoOp(t *testing.T) {
	in := New(context.Background(), Devices{}, Config{Log: quietLog()})
	assert.Equal(t, "none", in.Hardware())
	in.Show(SampleStatus(InGame))
	in.Show(Status{Kind: TokenRejected})
	require.NoError(t, in.Close())
	require.NoError(t, in.Close())
}

func TestLEDsFollowShow(t *testing.T) {
	c := clocktest.New(epoch)
	green, yellow, red := &levelLED{}, &levelLED{}, &levelLED{}
	in := New(context.Background(), Devices{Green: green, Yellow: yellow, Red: red, Clock: c}, Config{Log: quietLog()})
	defer in.Close()
	assert.Len(t, in.Found().LEDs, 3)
	assert.Contains(t, in.Found().LEDs[0], "green ")
	assert.Empty(t, in.Found().Display)
	for _, k := range Kinds() {
		in.Show(Status{Kind: k})
		g, y, r := LEDPatterns(Status{Kind: k})
		assert.Equal(t, []led.Pattern{g, y, r}, in.leds.Patterns(), "%v", k)
	}
	require.NoError(t, in.Close())
	for _, l := range []*levelLED{green, yellow, red} {
		require.NotZero(t, l.count())
		assert.Equal(t, gpio.Low, l.writes[len(l.writes)-1], "LEDs are off after Close")
	}
}

func TestACTOnlyGetsACTPattern(t *testing.T) {
	act := &levelLED{}
	closed := false
	in := New(context.Background(), Devices{ACT: act, Closers: []func() error{func() error { closed = true; return nil }}}, Config{Log: quietLog()})
	in.Show(Status{Kind: SetupNeeded})
	assert.Equal(t, []led.Pattern{led.DoubleBlink}, in.leds.Patterns())
	require.NoError(t, in.Close())
	assert.True(t, closed, "Close runs the closers (the ACT trigger is restored there)")
}

// waitFor steps the fake clock timer by timer until cond holds, letting
// the display loop of in settle before each look.
func waitFor(t *testing.T, in *Indicators, c *clocktest.Clock, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := c.Now().Add(limit)
	for {
		// Idle: parked with the latest Show seen, and its timer (if any)
		// not fired yet.
		pending := c.IsPending
		require.Eventually(t, func() bool { return in.idle(pending) }, 10*time.Second, 100*time.Microsecond, "display loop never waits")
		if cond() {
			return
		}
		next, ok := c.Next()
		if !ok || c.Now().Add(next).After(deadline) {
			// Nothing more happens before the deadline.
			c.Advance(deadline.Sub(c.Now()))
			require.Eventually(t, func() bool { return in.idle(pending) }, 10*time.Second, 100*time.Microsecond, "display loop never waits")
			if cond() {
				return
			}
			t.Fatalf("condition not met within %v of fake time", limit)
		}
		c.Advance(next)
	}
}

// shown reports whether the display loop has drawn the latest Status and
// waits for the next change.
func shown(in *Indicators) func() bool {
	return func() bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		return in.parked.Load() == 2 && in.seenSeq.Load() == in.showSeq
	}
}

func newOLED(t *testing.T, b *bus) *ssd1306.Dev {
	t.Helper()
	d, err := ssd1306.New(b, ssd1306.Addr, ssd1306.Opts{})
	require.NoError(t, err)
	return d
}

func TestOLEDDrawsDimsAndShifts(t *testing.T) {
	c := clocktest.New(epoch)
	b := &bus{present: map[uint16]bool{ssd1306.Addr: true}}
	in := New(context.Background(), Devices{OLED: newOLED(t, b), Clock: c}, Config{Log: quietLog()})
	defer in.Close()
	assert.Contains(t, in.Found().Display, "0x3c", "the display found, for the status page")

	normal := []byte{0x00, 0x81, contrastNormal}
	dim := []byte{0x00, 0x81, contrastDim}
	waitFor(t, in, c, time.Second, func() bool { return b.has(normal) && len(b.writes()) >= 1+1+16 })

	// Measure from the first idle frame: that is when the loop saw the
	// change (the fake clock may jump before it does).
	in.Show(SampleStatus(OnlineIdle))
	waitFor(t, in, c, time.Minute, shown(in))
	start := c.Now()
	waitFor(t, in, c, 10*time.Minute, func() bool { return b.has(dim) })
	assert.GreaterOrEqual(t, c.Now().Sub(start), 5*time.Minute, "dims after DimAfter, not before")
	assert.Less(t, c.Now().Sub(start), 5*time.Minute+time.Second)

	// A game wakes it up at normal contrast.
	n := len(b.writes())
	in.Show(SampleStatus(InGame))
	waitFor(t, in, c, time.Second, func() bool {
		w := b.writes()
		return len(w) > n && bytes.Equal(w[n], normal)
	})
	require.NoError(t, in.Close())
	assert.Equal(t, []byte{0x00, 0xAE}, b.writes()[len(b.writes())-1], "Close puts the OLED to sleep")
}

func TestOLEDShiftMovesThePicture(t *testing.T) {
	c := clocktest.New(epoch)
	b := &bus{present: map[uint16]bool{ssd1306.Addr: true}}
	in := New(context.Background(), Devices{OLED: newOLED(t, b), Clock: c}, Config{Log: quietLog(), DimAfter: -1})
	defer in.Close()
	in.Show(SampleStatus(SetupNeeded))
	waitFor(t, in, c, time.Second, shown(in))
	n := len(b.writes())
	waitFor(t, in, c, 2*time.Minute, func() bool { return len(b.writes()) > n })
	assert.Equal(t, time.Minute, c.Now().Sub(epoch), "the picture moves after ShiftEvery")
	assert.Equal(t, 2*8, len(b.writes())-n, "moving by a pixel changes every page")
}

func TestLCDLoadsGlyphsAndPages(t *testing.T) {
	c := clocktest.New(epoch)
	b := &bus{present: map[uint16]bool{hd44780.Addr: true}}
	lcd, err := hd44780.New(b, hd44780.Addr, hd44780.Opts{Sleep: func(time.Duration) {}})
	require.NoError(t, err)
	initWrites := len(b.writes())
	in := New(context.Background(), Devices{LCD: lcd, Clock: c}, Config{Log: quietLog()})
	defer in.Close()
	in.Show(SampleStatus(InGame)) // 3 body lines on 16×2: three pages
	shows := func(text string) func() bool {
		return func() bool {
			for _, w := range b.writes()[initWrites:] {
				if bytes.Contains(lcdText(w), []byte(text)) {
					return true
				}
			}
			return false
		}
	}
	waitFor(t, in, c, 4*time.Second, shows("vs edax-lv5  std"))
	w := b.writes()
	for i := 0; i < 8; i++ {
		require.Len(t, w[initWrites+i], 4*9, "glyph %d: address + 8 rows", i)
		assert.Equal(t, byte(0x40|i<<3), lcdByte(w[initWrites+i][:4]), "glyph %d CGRAM address", i)
	}
	assert.True(t, shows("1 \x0634 \x0721 \x000:41\x01")(), "page 0: leg 1")
	waitFor(t, in, c, 5*time.Second, shows("2 \x0618 \x0729 \x000:52"))
	assert.Equal(t, 4*time.Second, c.Now().Sub(epoch), "the next page after PageEvery")
	waitFor(t, in, c, 5*time.Second, shows("total 52-50"))
	assert.Equal(t, 8*time.Second, c.Now().Sub(epoch))
}

// lcdByte decodes the LCD byte of four backpack bytes.
func lcdByte(w []byte) byte { return w[0]&0xF0 | w[2]>>4 }

// lcdText decodes the data (RS=1) bytes of a backpack write.
func lcdText(w []byte) []byte {
	var out []byte
	for i := 0; i+4 <= len(w); i += 4 {
		if w[i]&0x01 != 0 {
			out = append(out, lcdByte(w[i:i+4]))
		}
	}
	return out
}

func TestDisplayErrorsAreLoggedOnceAndRetried(t *testing.T) {
	c := clocktest.New(epoch)
	b := &bus{present: map[uint16]bool{ssd1306.Addr: true}}
	oled := newOLED(t, b)
	b.fail = true
	var logs bytes.Buffer
	in := New(context.Background(), Devices{OLED: oled, Clock: c}, Config{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	defer in.Close()
	in.Show(SampleStatus(OnlineIdle))
	waitFor(t, in, c, 20*time.Second, func() bool { return c.Now().Sub(epoch) >= 15*time.Second })
	assert.Equal(t, 1, bytes.Count(logs.Bytes(), []byte("display write failed")))
	b.Lock()
	b.fail = false
	b.Unlock()
	waitFor(t, in, c, 10*time.Second, func() bool { return len(b.writes()) >= 1+1+16 })
	waitFor(t, in, c, time.Second, func() bool { return bytes.Contains(logs.Bytes(), []byte("display works again")) })
}

func TestShowDoesNotKeepCallersSlice(t *testing.T) {
	in := New(context.Background(), Devices{}, Config{Log: quietLog()})
	defer in.Close()
	legs := []Leg{{Mine: 1}}
	in.Show(Status{Kind: InGame, Game: Game{Legs: legs}})
	legs[0].Mine = 99
	got, _ := in.current()
	assert.Equal(t, 1, got.Game.Legs[0].Mine)
}

func TestOpenDisplayProbes(t *testing.T) {
	tests := []struct {
		name    string
		present []uint16
		kind    Display
		addr    uint16
		want    string // device String(), "" for none
	}{
		{"nothing", nil, DisplayAuto, 0, ""},
		{"oled at 0x3d", []uint16{0x3D}, DisplayAuto, 0, "ssd1306 128x64 @0x3d"},
		{"lcd at 0x3f", []uint16{0x3F}, DisplayAuto, 0, "hd44780 16x2 @0x3f"},
		{"oled wins over lcd", []uint16{0x27, 0x3C}, DisplayAuto, 0, "ssd1306 128x64 @0x3c"},
		{"sh1106 chosen", []uint16{0x3C}, DisplaySH1106, 0, "sh1106 128x64 @0x3c"},
		{"128x32 chosen", []uint16{0x3C}, DisplaySSD130632, 0, "ssd1306 128x32 @0x3c"},
		{"lcd2004 chosen", []uint16{0x27}, DisplayLCD2004, 0, "hd44780 20x4 @0x27"},
		{"lcd chosen, only oled there", []uint16{0x3C}, DisplayLCD1602, 0, ""},
		{"address override", []uint16{0x3C, 0x20}, DisplayLCD1602, 0x20, "hd44780 16x2 @0x20"},
		{"override not answering", []uint16{0x3C}, DisplayAuto, 0x3D, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &bus{present: map[uint16]bool{}}
			for _, a := range tt.present {
				b.present[a] = true
			}
			oled, lcd, err := OpenDisplay(b, tt.kind, tt.addr)
			if tt.want == "" {
				assert.ErrorIs(t, err, ErrNoDisplay)
				assert.Nil(t, oled)
				assert.Nil(t, lcd)
				assert.Empty(t, b.writes(), "nothing written when nothing answers")
				return
			}
			require.NoError(t, err)
			switch {
			case oled != nil:
				assert.Equal(t, tt.want, oled.String())
				assert.Nil(t, lcd)
			case lcd != nil:
				assert.Equal(t, tt.want, lcd.String())
			default:
				t.Fatal("no device")
			}
		})
	}
	_, _, err := OpenDisplay(&bus{}, "vfd", 0)
	assert.ErrorContains(t, err, "unknown")
}

func TestParseDisplay(t *testing.T) {
	d, err := ParseDisplay("")
	require.NoError(t, err)
	assert.Equal(t, DisplayAuto, d)
	for _, want := range append(Displays(), DisplayAuto, DisplayNone) {
		d, err := ParseDisplay(string(want))
		require.NoError(t, err)
		assert.Equal(t, want, d)
	}
	_, err = ParseDisplay("oled")
	assert.Error(t, err)
}

// TestOpenWithoutHardware runs the real bring-up on a machine without
// the Pi's GPIO and I²C devices: it must log and give a working no-op.
func TestOpenWithoutHardware(t *testing.T) {
	for _, dev := range []string{"/dev/gpiochip0", "/dev/i2c-1"} {
		if _, err := os.Stat(dev); err == nil {
			t.Skipf("%s exists: this machine has hardware", dev)
		}
	}
	var logs bytes.Buffer
	in := Open(context.Background(), Config{ACT: ACTOff, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	assert.Equal(t, "none", in.Hardware())
	in.Show(SampleStatus(InGame))
	require.NoError(t, in.Close())
	t.Log(logs.String())
	assert.Equal(t, 1, strings.Count(logs.String(), "\n"), "one log line: %s", logs.String())
	assert.Contains(t, logs.String(), "green LED pin GPIO17 not available")
	assert.Contains(t, logs.String(), "display: no I²C bus")
	found := in.Found()
	assert.Empty(t, found.LEDs)
	assert.Empty(t, found.Display)
	assert.Contains(t, found.Missing, "green LED pin GPIO17 not available")
	assert.Contains(t, strings.Join(found.Missing, "\n"), "display: no I²C bus", "the status page says why, not only the log")
}

// slowBus takes 10 ms of fake time per write, like a real 100 kHz bus
// takes ≈12 ms per OLED page.
type slowBus struct {
	bus
	clock *clocktest.Clock
	busy  time.Duration
}

func (b *slowBus) Tx(addr uint16, w, r []byte) error {
	if len(w) > 0 {
		b.clock.Advance(10 * time.Millisecond)
		b.Lock()
		b.busy += 10 * time.Millisecond
		b.Unlock()
	}
	return b.bus.Tx(addr, w, r)
}

// TestDisplayKeepsBusShare: however often Show is called, the loop keeps
// the bus busy at most BusShare of the time, and the latest Status wins.
func TestDisplayKeepsBusShare(t *testing.T) {
	c := clocktest.New(epoch)
	b := &slowBus{bus: bus{present: map[uint16]bool{ssd1306.Addr: true}}, clock: c}
	oled, err := ssd1306.New(b, ssd1306.Addr, ssd1306.Opts{})
	require.NoError(t, err)
	b.busy = 0
	start := c.Now()
	in := New(context.Background(), Devices{OLED: oled, Clock: c}, Config{Log: quietLog(), BusShare: 0.25})
	defer in.Close()
	// Every 50 ms a status that differs from the last frame drawn on
	// every page: the loop always has a full frame to draw.
	frames := func() int {
		n := 0
		for _, w := range b.writes() {
			if bytes.Equal(w, []byte{0x00, 0xB0, 0x00, 0x10}) {
				n++
			}
		}
		return n
	}
	for c.Now().Sub(start) < 20*time.Second {
		st := SampleStatus(InGame)
		if frames()%2 == 1 {
			st = SampleStatus(SetupNeeded)
		}
		in.Show(st)
		waitFor(t, in, c, time.Second, func() bool { return true })
		c.Advance(50 * time.Millisecond)
	}
	last := SampleStatus(OnlineIdle)
	in.Show(last)
	waitFor(t, in, c, 5*time.Second, shown(in))
	b.Lock()
	busy := b.busy
	b.Unlock()
	elapsed := c.Now().Sub(start)
	t.Logf("bus busy %v of %v", busy, elapsed)
	share := float64(busy) / float64(elapsed)
	assert.LessOrEqual(t, share, 0.25+0.03, "bus share")
	assert.Greater(t, share, 0.15, "the loop keeps drawing while there is something new")
	got, _ := in.current()
	assert.Equal(t, last, got)
}

// TestClockCountsDownOnMyMove: the display runs our clock on the leg
// where it is our move, from the time of Show, a redraw a second; the
// other leg's clock stands.
func TestClockCountsDownOnMyMove(t *testing.T) {
	c := clocktest.New(epoch)
	b := &bus{present: map[uint16]bool{hd44780.Addr: true}}
	lcd, err := hd44780.New(b, hd44780.Addr, hd44780.Opts{Cols: 20, Rows: 4, Sleep: func(time.Duration) {}})
	require.NoError(t, err)
	in := New(context.Background(), Devices{LCD: lcd, Clock: c}, Config{Log: quietLog()})
	defer in.Close()
	// Let the first screen be drawn and its redraw limit pass, so that the
	// Show below is drawn at once however the goroutines are scheduled
	// (under qemu the loop often draws before the first Show arrives).
	waitFor(t, in, c, time.Second, shown(in))
	c.Advance(time.Second)
	st := SampleStatus(InGame) // leg 1: 41.3 s, my move; leg 2: 52 s
	st.Game.Legs[0].MyClock = 2300 * time.Millisecond
	at := c.Now()
	in.Show(st)
	rows := func() []string {
		var out []string
		for _, w := range b.writes() {
			if txt := lcdText(w); len(txt) == 20 {
				out = append(out, string(txt))
			}
		}
		return out
	}
	leg1 := func(clock string) string { return "1 \x0634 \x0721 \x00" + clock + "\x01    " }
	waitFor(t, in, c, time.Second, shown(in))
	require.Contains(t, rows(), leg1("0:02"))
	waitFor(t, in, c, 2*time.Second, func() bool { return slices.Contains(rows(), leg1("0:01")) })
	assert.Equal(t, 301*time.Millisecond, c.Now().Sub(at), "2.3 s shows 0:01 just after 0.3 s")
	waitFor(t, in, c, 2*time.Second, func() bool { return slices.Contains(rows(), leg1("0:00")) })
	assert.Equal(t, 1301*time.Millisecond, c.Now().Sub(at))
	n := len(b.writes())
	waitFor(t, in, c, 10*time.Second, func() bool { return c.Now().Sub(at) >= 5*time.Second })
	assert.Len(t, b.writes(), n, "at 0:00 the clock stops: no more redraws")
	for _, r := range rows() {
		assert.NotContains(t, r, "2 \x0618 \x0729 \x000:51", "leg 2 is not our move: its clock stands")
	}
}

// TestDisplayNamesTheScreenDriven: Display gives the type of the display
// driven, for the status page's picture of it; none without one.
func TestDisplayNamesTheScreenDriven(t *testing.T) {
	b := &bus{present: map[uint16]bool{ssd1306.Addr: true, hd44780.Addr: true}}
	oled := New(context.Background(), Devices{OLED: newOLED(t, b)}, Config{Log: quietLog()})
	defer oled.Close()
	assert.Equal(t, DisplaySSD1306, oled.Display())
	lcd, err := hd44780.New(b, hd44780.Addr, hd44780.Opts{Cols: 20, Rows: 4, Sleep: func(time.Duration) {}})
	require.NoError(t, err)
	in := New(context.Background(), Devices{LCD: lcd}, Config{Log: quietLog()})
	defer in.Close()
	assert.Equal(t, DisplayLCD2004, in.Display())
	none := New(context.Background(), Devices{}, Config{Log: quietLog()})
	assert.Equal(t, DisplayNone, none.Display())
}
