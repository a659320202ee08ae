package gpio

import (
	"image"
	"testing"
	"time"

	"periph.io/x/conn/v3/i2c/i2ctest"

	"flipbot.dev/flipbot/gpio/ssd1306"
)

// BenchmarkRenderOLED: one game screen rendered for a 128×64 OLED.
func BenchmarkRenderOLED(b *testing.B) {
	st := SampleStatus(InGame)
	for b.Loop() {
		RenderOLED(st, image.Pt(128, 64), View{})
	}
}

// BenchmarkClockTick: what the display loop does once a second in a
// game: render, compare pages, send the changed one (to a recording bus).
func BenchmarkClockTick(b *testing.B) {
	rec := &i2ctest.Record{}
	d, err := ssd1306.New(rec, ssd1306.Addr, ssd1306.Opts{})
	if err != nil {
		b.Fatal(err)
	}
	st := SampleStatus(InGame)
	i, sent := 0, 0
	for b.Loop() {
		st.Game.Legs[1].MyClock = time.Duration(1+i%60) * time.Second
		i++
		img := RenderOLED(st, image.Pt(128, 64), View{})
		if err := d.Draw(d.Bounds(), img, image.Point{}); err != nil {
			b.Fatal(err)
		}
		for _, op := range rec.Ops {
			sent += len(op.W)
		}
		rec.Ops = rec.Ops[:0]
	}
	b.ReportMetric(float64(sent)/float64(b.N), "bytes/op")
}
