// Package ledtest recognises gpio/led's patterns in an LED's state read
// from outside (an emulator's GPIO level register, a camera): test
// support, beside the driver as periph's gpiotest is beside gpio, for the
// emulated Pi's image test (gokrazy/imagetest) and the image helper
// (cmd/flipbot-image).
//
// It imports gpio/led (the patterns it recognises).
package ledtest

import (
	"time"

	"flipbot.dev/flipbot/gpio/led"
)

// Sample is an LED's state at a moment, as seen from outside: read back
// from the SoC's GPIO level register by an emulator, or by a camera.
type Sample struct {
	At  time.Time
	Lit bool
}

// Recognise returns the pattern that explains the samples of one LED best,
// and the fraction of samples it explains (1 is all). Each blinking pattern
// is laid over the samples at every phase, 5 ms apart, and scored by the
// samples it agrees with; the steady ones by the samples that are all lit
// or all dark. The samples should span at least two periods of the slowest
// pattern (3 s) and be taken every 50 ms or faster, so that a 100 ms flash
// is seen; a busy emulated board shifts its flashes by tens of
// milliseconds, which costs agreement, not the answer. Ties go to the
// pattern listed first (steady before blinking).
func Recognise(samples []Sample) (led.Pattern, float64) {
	if len(samples) == 0 {
		return led.Off, 0
	}
	t0 := samples[0].At
	best, bestScore := led.Off, -1
	for _, p := range led.Patterns() {
		score := 0
		period := p.Period()
		if period == 0 {
			for _, s := range samples {
				if lit, _ := p.At(0); lit == s.Lit {
					score++
				}
			}
		} else {
			for phase := time.Duration(0); phase < period; phase += 5 * time.Millisecond {
				n := 0
				for _, s := range samples {
					if lit, _ := p.At(s.At.Sub(t0) + phase); lit == s.Lit {
						n++
					}
				}
				score = max(score, n)
			}
		}
		if score > bestScore {
			best, bestScore = p, score
		}
	}
	return best, float64(bestScore) / float64(len(samples))
}
