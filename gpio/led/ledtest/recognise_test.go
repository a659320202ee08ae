package ledtest

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/gpio/led"
)

// sampled returns what an observer reading every `every` for d sees of p
// started at phase, with each reading late by up to jitter (an emulated
// board under load, a slow monitor).
func sampled(p led.Pattern, phase, every, d, jitter time.Duration, rng *rand.Rand) []Sample {
	start := time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)
	var out []Sample
	for t := time.Duration(0); t < d; t += every {
		late := time.Duration(0)
		if jitter > 0 {
			late = time.Duration(rng.Int64N(int64(jitter)))
		}
		lit, _ := p.At(t + phase - late)
		out = append(out, Sample{At: start.Add(t), Lit: lit})
	}
	return out
}

func TestRecognise(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range led.Patterns() {
		for _, c := range []struct {
			every, jitter time.Duration
			minScore      float64
		}{
			{20 * time.Millisecond, 0, 1},
			{25 * time.Millisecond, 40 * time.Millisecond, 0.85},
			{50 * time.Millisecond, 0, 0.95},
		} {
			for _, phase := range []time.Duration{0, 70 * time.Millisecond, 333 * time.Millisecond, 1100 * time.Millisecond} {
				got, score := Recognise(sampled(p, phase, c.every, 4*time.Second, c.jitter, rng))
				assert.Equal(t, p, got, "%s every %s, jitter %s, phase %s", p, c.every, c.jitter, phase)
				assert.GreaterOrEqual(t, score, c.minScore, "%s every %s, jitter %s, phase %s", p, c.every, c.jitter, phase)
			}
		}
	}
}

func TestRecogniseOdd(t *testing.T) {
	got, score := Recognise(nil)
	assert.Equal(t, led.Off, got)
	assert.Zero(t, score)

	// A pin that flickers at random is explained by nothing well.
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Now()
	var noise []Sample
	for i := range 200 {
		noise = append(noise, Sample{At: start.Add(time.Duration(i) * 20 * time.Millisecond), Lit: rng.IntN(2) == 0})
	}
	_, score = Recognise(noise)
	assert.Less(t, score, 0.7)
}
