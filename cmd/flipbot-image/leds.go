package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"flipbot.dev/flipbot/gokrazy/vm"
	"flipbot.dev/flipbot/gpio/led"
	"flipbot.dev/flipbot/gpio/led/ledtest"
)

// piLEDs are flipbot's default LED pins (gpio/README.md, "Wiring"): the
// emulated Pi has nothing wired, but the SoC's level register shows what
// the pins are driven to.
var piLEDs = []struct {
	name string
	gpio uint
}{{"green", 17}, {"yellow", 27}, {"red", 22}}

// recogniseLEDs names the pattern of each LED in samples.
func recogniseLEDs(samples []vm.GPIOSample) []led.Pattern {
	out := make([]led.Pattern, len(piLEDs))
	for i, l := range piLEDs {
		ls := make([]ledtest.Sample, len(samples))
		for j, s := range samples {
			ls[j] = ledtest.Sample{At: s.At, Lit: s.Pin(l.gpio)}
		}
		out[i], _ = ledtest.Recognise(ls)
	}
	return out
}

// watchLEDs reads the emulated Pi's LED pins in 3-second windows and
// prints their patterns when they change, until ctx ends.
func watchLEDs(ctx context.Context, v *vm.VM, out io.Writer) {
	last := ""
	for ctx.Err() == nil {
		samples, err := v.SampleGPIO(ctx, 3*time.Second, 25*time.Millisecond)
		if err != nil || len(samples) < 60 {
			// Between power-ons, or QEMU not up yet.
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		var parts []string
		for i, p := range recogniseLEDs(samples) {
			parts = append(parts, piLEDs[i].name+" "+p.String())
		}
		if s := strings.Join(parts, ", "); s != last {
			last = s
			fmt.Fprintf(out, "LEDs: %s\n", s)
		}
	}
}
