package gpio

import (
	"fmt"
	"image"

	"flipbot.dev/flipbot/gpio/hd44780"
	"flipbot.dev/flipbot/gpio/ssd1306"
)

// Contrast levels of an OLED, normal and dimmed.
const (
	contrastNormal byte = 0xCF
	contrastDim    byte = 0x08
)

// screen is a display as the display loop drives it.
type screen interface {
	show(st Status, v screenView) error
	// pages returns how many pages st needs (1 when all lines fit).
	pages(st Status) int
	// shifts reports whether the content moves against burn-in.
	shifts() bool
	halt() error
	String() string
}

type oledScreen struct {
	dev      *ssd1306.Dev
	dimKnown bool
	dim      bool
}

func (s *oledScreen) String() string { return s.dev.String() }

func (s *oledScreen) show(st Status, v screenView) error {
	if !s.dimKnown || s.dim != v.Dim {
		c := contrastNormal
		if v.Dim {
			c = contrastDim
		}
		if err := s.dev.SetContrast(c); err != nil {
			return err
		}
		s.dimKnown, s.dim = true, v.Dim
	}
	b := s.dev.Bounds()
	img := RenderOLED(st, b.Size(), v.View)
	return s.dev.Draw(b, img, image.Point{})
}

func (s *oledScreen) pages(st Status) int {
	b := s.dev.Bounds()
	title, body := content(st, OLEDColumns(b.Dx()-2))
	_ = title
	return pageCount(len(body), b.Dy()/oledLineH)
}

func (s *oledScreen) shifts() bool { return true }

func (s *oledScreen) halt() error { return s.dev.Halt() }

type lcdScreen struct {
	dev    *hd44780.Dev
	glyphs bool
}

func (s *lcdScreen) String() string { return s.dev.String() }

func (s *lcdScreen) show(st Status, v screenView) error {
	if !s.glyphs {
		for i, g := range Glyphs() {
			if err := s.dev.SetGlyph(i, g); err != nil {
				return fmt.Errorf("load icons: %w", err)
			}
		}
		s.glyphs = true
	}
	return s.dev.WriteLines(TextLines(st, s.dev.Cols(), s.dev.Rows(), v.View))
}

func (s *lcdScreen) pages(st Status) int {
	_, body := content(st, s.dev.Cols())
	return pageCount(len(body), s.dev.Rows())
}

func (s *lcdScreen) shifts() bool { return false }

func (s *lcdScreen) halt() error { return s.dev.Halt() }

// pageCount returns how many pages n body lines need on rows lines (one
// taken by the title).
func pageCount(n, rows int) int {
	room := rows - 1
	if room <= 0 || n <= room {
		return 1
	}
	return (n + room - 1) / room
}
