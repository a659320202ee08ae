package gpio

import (
	"image"
	"image/color"
	"image/draw"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// OLED text grid: basicfont.Face7x13 in 16-pixel lines.
const (
	oledCharW  = 7
	oledLineH  = 16
	oledAscent = 11
)

// OLEDColumns returns how many characters fit in a line of a display
// width pixels wide.
func OLEDColumns(width int) int { return width / oledCharW }

// RenderOLED draws the screen of st for a monochrome display of the given
// size (128×64 or 128×32): white (255) pixels are lit. The title sits in a
// lit bar; the body follows in 16-pixel lines (three on 64 rows, one on
// 32 rows, cycling through the lines by v.Page when they do not fit).
func RenderOLED(st Status, size image.Point, v View) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, size.X, size.Y))
	rows := size.Y / oledLineH
	if rows < 1 {
		rows = 1
	}
	lines := TextLines(st, OLEDColumns(size.X-2), rows, v)
	sx, sy := clampShift(v.Shift.X, 2), clampShift(v.Shift.Y, 1)
	for i, line := range lines {
		top := i*oledLineH + sy
		fg := color.Gray{Y: 255}
		if i == 0 {
			// The title bar, two pixels short of the width so that a
			// shift moves its edges too.
			bar := image.Rect(sx, top, size.X-2+sx, top+oledLineH-3)
			draw.Draw(img, bar, image.NewUniform(fg), image.Point{}, draw.Src)
			fg = color.Gray{Y: 0}
		}
		drawText(img, line, sx, top+oledAscent, fg)
	}
	return img
}

func clampShift(v, hi int) int {
	return max(0, min(v, hi))
}

// drawText draws s with its baseline at y, icon codes from Glyphs.
func drawText(dst draw.Image, s string, x, y int, fg color.Gray) {
	d := font.Drawer{Dst: dst, Src: image.NewUniform(fg), Face: basicfont.Face7x13}
	glyphs := Glyphs()
	for i := 0; i < len(s); i++ {
		c := s[i]
		if int(c) < len(glyphs) {
			drawGlyph(dst, glyphs[c], x+1, y-7, fg)
		} else {
			d.Dot = fixed.P(x, y)
			d.DrawString(string(rune(c)))
		}
		x += oledCharW
	}
}

// drawGlyph draws a 5×8 icon bitmap with its top left at (x, y).
func drawGlyph(dst draw.Image, g [8]byte, x, y int, fg color.Gray) {
	b := dst.Bounds()
	for r, bits := range g {
		for c := 0; c < 5; c++ {
			if bits&(0x10>>c) != 0 {
				p := image.Pt(x+c, y+r)
				if p.In(b) {
					dst.Set(p.X, p.Y, fg)
				}
			}
		}
	}
}
