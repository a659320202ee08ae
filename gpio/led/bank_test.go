package led

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/physic"

	"flipbot.dev/flipbot/internal/clock/clocktest"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// edge is one write to a recordingPin.
type edge struct {
	At    time.Duration // since epoch
	Level gpio.Level
}

// recordingPin is a gpio.PinIO that keeps every Out call with the fake
// time (gpiotest.Pin keeps only the last level, and needs a module we do
// not use).
type recordingPin struct {
	name  string
	clock *clocktest.Clock
	fail  error

	mu    sync.Mutex
	edges []edge
}

func newRecordingPin(name string, c *clocktest.Clock) *recordingPin {
	return &recordingPin{name: name, clock: c}
}

func (p *recordingPin) String() string                        { return p.name }
func (p *recordingPin) Halt() error                           { return nil }
func (p *recordingPin) Name() string                          { return p.name }
func (p *recordingPin) Number() int                           { return -1 }
func (p *recordingPin) Function() string                      { return "Out" }
func (p *recordingPin) In(gpio.Pull, gpio.Edge) error         { return errors.New("output only") }
func (p *recordingPin) WaitForEdge(time.Duration) bool        { return false }
func (p *recordingPin) Pull() gpio.Pull                       { return gpio.PullNoChange }
func (p *recordingPin) DefaultPull() gpio.Pull                { return gpio.PullDown }
func (p *recordingPin) PWM(gpio.Duty, physic.Frequency) error { return errors.New("no PWM") }

func (p *recordingPin) Read() gpio.Level {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.edges) == 0 {
		return gpio.Low
	}
	return p.edges[len(p.edges)-1].Level
}

func (p *recordingPin) Out(l gpio.Level) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return p.fail
	}
	p.edges = append(p.edges, edge{p.clock.Now().Sub(epoch), l})
	return nil
}

func (p *recordingPin) Edges() []edge {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]edge(nil), p.edges...)
}

var _ gpio.PinIO = (*recordingPin)(nil)

// runBank starts b.Run and returns a stop function that waits for it.
func runBank(t *testing.T, b *Bank) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// advanceTo steps the fake clock from timer to timer until total time has
// passed since epoch, waiting each time for the bank to block again.
func advanceTo(c *clocktest.Clock, total time.Duration) {
	for {
		c.WaitTimers(1)
		next, _ := c.Next()
		now := c.Now().Sub(epoch)
		if now+next > total {
			c.Advance(total - now)
			return
		}
		c.Advance(next)
	}
}

func TestBankDoubleBlinkEdges(t *testing.T) {
	c := clocktest.New(epoch)
	red := newRecordingPin("GPIO22", c)
	green := newRecordingPin("GPIO17", c)
	b := NewBank(c, nil, green, red)
	b.Set(Off, DoubleBlink)
	stop := runBank(t, b)
	advanceTo(c, 3100*ms)
	c.WaitTimers(1)
	stop()

	assert.Equal(t, []edge{
		{0, gpio.High}, {150 * ms, gpio.Low}, {300 * ms, gpio.High}, {450 * ms, gpio.Low},
		{1500 * ms, gpio.High}, {1650 * ms, gpio.Low}, {1800 * ms, gpio.High}, {1950 * ms, gpio.Low},
		{3000 * ms, gpio.High},
		{3100 * ms, gpio.Low}, // Run turns the LEDs off when it ends
	}, red.Edges())
	assert.Equal(t, []edge{{0, gpio.Low}, {3100 * ms, gpio.Low}}, green.Edges(), "an Off LED is written once, then at the end")
}

func TestBankSetRestartsOnlyChangedLEDs(t *testing.T) {
	c := clocktest.New(epoch)
	a := newRecordingPin("a", c)
	bpin := newRecordingPin("b", c)
	b := NewBank(c, nil, a, bpin)
	b.Set(SlowBlink, SlowBlink)
	stop := runBank(t, b)
	advanceTo(c, 700*ms) // both dark since 500 ms
	c.WaitTimers(1)

	b.Set(SlowBlink, On) // a keeps its phase, b changes
	// Wait until the bank took the change: b is lit.
	require.Eventually(t, func() bool { e := bpin.Edges(); return e[len(e)-1].Level == gpio.High }, 5*time.Second, time.Millisecond)
	b.Set(SlowBlink, On) // no change: nothing happens
	advanceTo(c, 1200*ms)
	c.WaitTimers(1)
	stop()

	assert.Equal(t, []edge{{0, gpio.High}, {500 * ms, gpio.Low}, {1000 * ms, gpio.High}, {1200 * ms, gpio.Low}}, a.Edges())
	assert.Equal(t, []edge{{0, gpio.High}, {500 * ms, gpio.Low}, {700 * ms, gpio.High}, {1200 * ms, gpio.Low}}, bpin.Edges())
	assert.Equal(t, []Pattern{SlowBlink, On}, b.Patterns())
}

func TestBankSteadyPatternsNeedNoTimer(t *testing.T) {
	c := clocktest.New(epoch)
	p := newRecordingPin("p", c)
	b := NewBank(c, nil, p)
	b.Set(On)
	stop := runBank(t, b)
	require.Eventually(t, func() bool { return len(p.Edges()) == 1 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, 0, c.Pending(), "a steady LED does not wake the goroutine")
	stop()
	assert.Equal(t, []edge{{0, gpio.High}, {0, gpio.Low}}, p.Edges())
}

func TestBankActiveLow(t *testing.T) {
	c := clocktest.New(epoch)
	p := newRecordingPin("p", c)
	b := NewBank(c, nil, ActiveLow(p))
	b.Set(On)
	stop := runBank(t, b)
	require.Eventually(t, func() bool { return len(p.Edges()) == 1 }, 5*time.Second, time.Millisecond)
	stop()
	assert.Equal(t, []edge{{0, gpio.Low}, {0, gpio.High}}, p.Edges(), "lit = pin low; off at the end = pin high")
	assert.Equal(t, "p (active low)", ActiveLow(p).(interface{ String() string }).String())
}

func TestBankWriteErrorsDoNotStopIt(t *testing.T) {
	c := clocktest.New(epoch)
	bad := newRecordingPin("bad", c)
	bad.fail = errors.New("gpio: broken")
	good := newRecordingPin("good", c)
	var logs bytes.Buffer
	b := NewBank(c, slog.New(slog.NewTextHandler(&logs, nil)), bad, good)
	b.Set(FastBlink, FastBlink)
	stop := runBank(t, b)
	advanceTo(c, 250*ms)
	c.WaitTimers(1)
	stop()
	assert.Equal(t, 1, strings.Count(logs.String(), "LED write failed"), "logged once: %s", logs.String())
	assert.Equal(t, []edge{{0, gpio.High}, {125 * ms, gpio.Low}, {250 * ms, gpio.High}, {250 * ms, gpio.Low}}, good.Edges())
}

// jsonPin names itself like periph's gpioioctl pins: a Name, and a String
// that dumps JSON.
type jsonPin struct{ anon }

func (jsonPin) Name() string   { return "GPIO17" }
func (jsonPin) String() string { return "{\n  \"Line\": 17 ...\n}" }

// anon is an output with no name at all.
type anon struct{}

func (anon) Out(gpio.Level) error { return nil }

func TestDescribe(t *testing.T) {
	assert.Equal(t, "GPIO17", Describe(jsonPin{}), "a pin's name, not its JSON dump")
	assert.Equal(t, "GPIO17 (active low)", Describe(ActiveLow(jsonPin{})))
	assert.Equal(t, "led.anon", Describe(anon{}))
}
