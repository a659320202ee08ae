package led

import (
	"periph.io/x/conn/v3/gpio"
)

// Output is what a pattern drives: a gpio.PinOut or gpio.PinIO
// (GPIO17 …), a SysfsLED (the on-board ACT LED), or a test recorder.
// Out(gpio.High) lights the LED.
type Output interface {
	Out(l gpio.Level) error
}

// ActiveLow wraps o for an LED wired between 3.3 V and the pin (lit when
// the pin is low): Out(High) drives the pin low.
func ActiveLow(o Output) Output {
	return inverted{o}
}

type inverted struct{ o Output }

func (i inverted) Out(l gpio.Level) error { return i.o.Out(!l) }

// String names the wrapped output (Describe) and says it is inverted.
func (i inverted) String() string { return Describe(i.o) + " (active low)" }
