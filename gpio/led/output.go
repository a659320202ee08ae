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

// String names the wrapped output when it has a name.
func (i inverted) String() string {
	if s, ok := i.o.(interface{ String() string }); ok {
		return s.String() + " (active low)"
	}
	return "active-low output"
}
