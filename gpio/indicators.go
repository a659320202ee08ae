package gpio

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"flipbot.dev/flipbot/gpio/hd44780"
	"flipbot.dev/flipbot/gpio/led"
	"flipbot.dev/flipbot/gpio/ssd1306"
	"flipbot.dev/flipbot/internal/clock"
)

// Devices are opened hardware handed to New. Every field may be nil.
type Devices struct {
	// Green, Yellow and Red are the status LEDs.
	Green, Yellow, Red led.Output
	// ACT is the board LED showing ACTPattern.
	ACT led.Output
	// OLED is a pixel display; LCD a character display (at most one of
	// the two is used, OLED first).
	OLED *ssd1306.Dev
	LCD  *hd44780.Dev
	// Clock drives blinking and the display timers; nil means the
	// system clock.
	Clock clock.Clock
	// Closers run at Close after everything is stopped (releasing the
	// ACT LED, closing the bus).
	Closers []func() error
}

// Indicators shows a Status on LEDs and a display. Show
// never blocks and never fails: the hardware is driven by goroutines of
// its own, the latest Status wins, and driver errors are logged. All
// methods are safe for concurrent use.
type Indicators struct {
	cfg      Config
	log      *slog.Logger
	clock    clock.Clock
	leds     *led.Bank // green, yellow, red, ACT (nil entries skipped)
	ledKinds []ledRole
	screen   screen
	closers  []func() error
	summary  string
	found    Found

	mu       sync.Mutex // guards latest, latestAt and showSeq
	latest   Status
	latestAt time.Time // when latest was shown: the clocks count down from there
	// showSeq counts Show calls; the display loop stores the count it
	// last read in seenSeq and sets parked while it waits. Tests use them
	// to know when the loop is idle.
	showSeq int64
	seenSeq atomic.Int64
	parked  atomic.Int32  // 0 running, 1 waiting for a timer only, 2 waiting for a timer or Show
	timer   atomic.Value  // holds the clock.Timer the loop waits for (a nil-valued box when none)
	wake    chan struct{} // capacity 1: "latest changed"

	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// ledRole is an LED's place in Devices.LEDs: 0 green, 1 yellow, 2 red,
// 3 the board's ACT LED.
type ledRole int

// New starts showing on the given devices until ctx is done or Close is
// called. The first Status shown is the zero one (Starting).
func New(ctx context.Context, d Devices, cfg Config) *Indicators {
	cfg = cfg.withDefaults()
	in := &Indicators{
		cfg:     cfg,
		log:     cfg.Log,
		clock:   d.Clock,
		closers: d.Closers,
		wake:    make(chan struct{}, 1),
	}
	if in.clock == nil {
		in.clock = clock.System()
	}
	var outs []led.Output
	var parts []string
	for i, o := range []led.Output{d.Green, d.Yellow, d.Red, d.ACT} {
		if o == nil {
			continue
		}
		outs = append(outs, o)
		in.ledKinds = append(in.ledKinds, ledRole(i))
		role, name := [...]string{"green", "yellow", "red", "ACT"}[i], led.Describe(o)
		parts = append(parts, role+" LED "+name)
		in.found.LEDs = append(in.found.LEDs, role+" "+name)
	}
	switch {
	case d.OLED != nil:
		in.screen = &oledScreen{dev: d.OLED}
	case d.LCD != nil:
		in.screen = &lcdScreen{dev: d.LCD}
	}
	if in.screen != nil {
		parts = append(parts, "display "+in.screen.String())
		in.found.Display = in.screen.String()
	}
	if len(parts) == 0 {
		in.summary = "none"
	} else {
		in.summary = strings.Join(parts, ", ")
	}
	ctx, in.cancel = context.WithCancel(ctx)
	if len(outs) > 0 {
		in.leds = led.NewBank(in.clock, in.log, outs...)
		in.setLEDs(Status{})
		in.wg.Add(1)
		go func() {
			defer in.wg.Done()
			in.leds.Run(ctx)
		}()
	}
	if in.screen != nil {
		in.wg.Add(1)
		go func() {
			defer in.wg.Done()
			in.displayLoop(ctx)
		}()
	}
	return in
}

// Found is what Open found of the hardware its Config names, for the
// status page: the LEDs driven and the display, and for each thing not
// found, why not.
type Found struct {
	// LEDs are the LEDs driven, such as "green GPIO17".
	LEDs []string
	// Display is the display driven, such as "ssd1306 128x64 @0x3c", or "".
	Display string
	// Missing says why what the Config names was not found, such as
	// "display: no I²C bus" or "display: no device at 0x3c, 0x3d, 0x27,
	// 0x3f on I2C1".
	Missing []string
}

// Found returns what is driven and what was not found.
func (in *Indicators) Found() Found {
	f := in.found
	f.LEDs = append([]string(nil), f.LEDs...)
	f.Missing = append([]string(nil), f.Missing...)
	return f
}

// Display returns the type of the display driven, for a preview of what
// it shows (Preview); DisplayNone when none is driven. An SH1106 reads as
// itself, an SSD1306 by its height.
func (in *Indicators) Display() Display {
	switch s := in.screen.(type) {
	case *oledScreen:
		switch {
		case s.dev.Bounds().Dy() == 32:
			return DisplaySSD130632
		case strings.HasPrefix(s.dev.String(), "sh1106"):
			return DisplaySH1106
		}
		return DisplaySSD1306
	case *lcdScreen:
		if s.dev.Cols() >= 20 {
			return DisplayLCD2004
		}
		return DisplayLCD1602
	}
	return DisplayNone
}

// Hardware describes what is driven, for logs and the status page, such
// as "green LED GPIO17, display ssd1306 128x64 @0x3c", or "none".
func (in *Indicators) Hardware() string { return in.summary }

// Show makes st the status to show. It returns at once; the LEDs change
// immediately, the display within its refresh budget. The clocks of legs
// where it is our move count down from now (see Leg.MyClock).
func (in *Indicators) Show(st Status) {
	st.Game.Legs = append([]Leg(nil), st.Game.Legs...) // the caller may reuse its slice
	in.mu.Lock()
	in.latest = st
	in.latestAt = in.clock.Now()
	in.showSeq++
	in.mu.Unlock()
	in.setLEDs(st)
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

func (in *Indicators) current() (Status, time.Time) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.seenSeq.Store(in.showSeq)
	return in.latest, in.latestAt
}

// idle reports whether the display loop waits with the latest Status
// taken into account; pending tells whether a timer has yet to fire.
// Tests use it with a fake clock.
func (in *Indicators) idle(pending func(clock.Timer) bool) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	p := in.parked.Load()
	t, _ := in.timer.Load().(timerBox)
	if p == 0 || (t.t != nil && !pending(t.t)) {
		return false
	}
	return p == 1 || in.seenSeq.Load() == in.showSeq
}

// timerBox lets atomic.Value hold "no timer".
type timerBox struct{ t clock.Timer }

func (in *Indicators) setLEDs(st Status) {
	if in.leds == nil {
		return
	}
	leds := StatusLEDs(st)
	ps := make([]led.Pattern, len(in.ledKinds))
	for i, k := range in.ledKinds {
		ps[i] = [...]led.Pattern{leds[0], leds[1], leds[2], ACTPattern(st)}[k]
	}
	in.leds.Set(ps...)
}

// Close stops the goroutines, turns the LEDs off, puts the display to
// sleep and releases the devices (the ACT LED gets its kernel trigger
// back). It returns the release errors; calling it again returns the same.
func (in *Indicators) Close() error {
	in.closeOnce.Do(func() {
		in.cancel()
		in.wg.Wait()
		var errs []error
		if in.screen != nil {
			if err := in.screen.halt(); err != nil {
				errs = append(errs, err)
			}
		}
		for _, c := range in.closers {
			if err := c(); err != nil {
				errs = append(errs, err)
			}
		}
		in.closeErr = errors.Join(errs...)
	})
	return in.closeErr
}

// displayLoop redraws the screen when the status changes and when the
// view (page, shift, dimming) is due to change, spending at most
// cfg.BusShare of the time on the bus.
func (in *Indicators) displayLoop(ctx context.Context) {
	start := in.clock.Now()
	var (
		shown      Status
		haveShown  bool
		lastView   screenView
		lastChange = start // when the Kind last changed
		lastKind   = Kind(-1)
		notBefore  time.Time
		failed     bool
	)
	for {
		now := in.clock.Now()
		if now.Before(notBefore) {
			if !in.sleep(ctx, notBefore.Sub(now), false) {
				return
			}
			continue
		}
		raw, at := in.current()
		st := countDown(raw, now.Sub(at))
		if st.Kind != lastKind {
			lastKind, lastChange = st.Kind, now
		}
		v := in.view(st, now, start, lastChange)
		if !haveShown || v != lastView || !reflect.DeepEqual(st, shown) {
			t0 := in.clock.Now()
			err := in.screen.show(st, v)
			busy := in.clock.Now().Sub(t0)
			switch {
			case err != nil && !failed:
				in.log.Warn("display write failed; retrying quietly", "display", in.screen.String(), "err", err)
				failed = true
			case err == nil && failed:
				in.log.Info("display works again", "display", in.screen.String())
				failed = false
			}
			shown, haveShown, lastView = st, true, v
			// Keep the bus share: after busy time on the bus, stay off it
			// for busy*(1/share-1), and never redraw more than 5 times a
			// second.
			pause := max(time.Duration(float64(busy)*(1/in.cfg.BusShare-1)), 200*time.Millisecond)
			if err != nil {
				pause = max(pause, 5*time.Second)
			}
			notBefore = in.clock.Now().Add(pause)
			if err != nil {
				haveShown = false // retry once the pause is over
				continue
			}
		}
		now = in.clock.Now() // drawing took time
		wait := in.nextViewChange(st, now, start, lastChange)
		if tick := nextTick(raw, now.Sub(at)); tick > 0 && (wait == 0 || tick < wait) {
			wait = tick
		}
		if !in.sleep(ctx, wait, true) {
			return
		}
	}
}

// countDown returns st as it looks elapsed after it was shown: on the
// legs where it is our move our clock runs, so their MyClock goes down by
// elapsed, rounded down to whole seconds as the screen shows it (and so
// that the display loop sees a change once a second).
func countDown(st Status, elapsed time.Duration) Status {
	if st.Kind != InGame || len(st.Game.Legs) == 0 {
		return st
	}
	legs := make([]Leg, len(st.Game.Legs))
	copy(legs, st.Game.Legs)
	for i, l := range legs {
		if l.MyTurn && !l.Finished {
			r := max(l.MyClock-elapsed, 0)
			legs[i].MyClock = r.Truncate(time.Second)
		}
	}
	st.Game.Legs = legs
	return st
}

// nextTick returns how long after elapsed a running clock of st (as
// shown, before countDown) shows the next lower whole second (1 ms after
// the crossing); 0 when no clock runs.
func nextTick(st Status, elapsed time.Duration) time.Duration {
	if st.Kind != InGame {
		return 0
	}
	var d time.Duration
	for _, l := range st.Game.Legs {
		r := l.MyClock - elapsed
		if !l.MyTurn || l.Finished || r <= 0 {
			continue
		}
		// The screen shows r rounded down: it changes just after r
		// crosses the whole second below it.
		t := r%time.Second + time.Millisecond
		if d == 0 || t < d {
			d = t
		}
	}
	return d
}

// sleep waits for d (0: forever), for a Show (when wakeable) or for ctx;
// it reports false when ctx is done.
func (in *Indicators) sleep(ctx context.Context, d time.Duration, wakeable bool) bool {
	var fire <-chan time.Time
	var t clock.Timer
	if d > 0 {
		t = in.clock.NewTimer(d)
		defer t.Stop()
		fire = t.C()
	}
	in.timer.Store(timerBox{t})
	wake := in.wake
	if !wakeable {
		wake = nil
	}
	if wakeable {
		in.parked.Store(2)
	} else {
		in.parked.Store(1)
	}
	defer in.parked.Store(0)
	select {
	case <-ctx.Done():
		return false
	case <-wake:
	case <-fire:
	}
	return true
}

// screenView is the View plus dimming.
type screenView struct {
	View
	Dim bool
}

// view returns how the screen looks at now.
func (in *Indicators) view(st Status, now, start, lastChange time.Time) screenView {
	var v screenView
	v.Page = int(now.Sub(start) / in.cfg.PageEvery)
	if in.cfg.ShiftEvery > 0 {
		// A slow walk over six positions: (0,0) (1,0) (2,0) (2,1) (1,1) (0,1).
		steps := [][2]int{{0, 0}, {1, 0}, {2, 0}, {2, 1}, {1, 1}, {0, 1}}
		s := steps[int(now.Sub(start)/in.cfg.ShiftEvery)%len(steps)]
		v.Shift.X, v.Shift.Y = s[0], s[1]
	}
	v.Dim = in.cfg.DimAfter > 0 && st.Kind != InGame && now.Sub(lastChange) >= in.cfg.DimAfter
	return v
}

// nextViewChange returns how long until view may change without a Show.
func (in *Indicators) nextViewChange(st Status, now, start, lastChange time.Time) time.Duration {
	untilNext := func(every time.Duration) time.Duration {
		return every - now.Sub(start)%every
	}
	d := time.Duration(0)
	take := func(x time.Duration) {
		if x > 0 && (d == 0 || x < d) {
			d = x
		}
	}
	if in.screen.pages(st) > 1 {
		take(untilNext(in.cfg.PageEvery))
	}
	if in.cfg.ShiftEvery > 0 && in.screen.shifts() {
		take(untilNext(in.cfg.ShiftEvery))
	}
	if in.cfg.DimAfter > 0 && st.Kind != InGame {
		take(lastChange.Add(in.cfg.DimAfter).Sub(now))
	}
	return d
}
