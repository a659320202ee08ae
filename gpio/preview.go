package gpio

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"time"
)

// SampleStatus returns an example Status of kind k with plausible
// content, for previews and documentation.
func SampleStatus(k Kind) Status {
	st := Status{Kind: k, Address: "192.168.1.23", BotName: "flipbot-pi", Rating: 1532}
	switch k {
	case SetupNeeded:
		st.PairingCode = "480917"
		st.SetupURL = "http://192.168.1.23:8080/"
	case TokenRejected:
		st.Detail = "HTTP 401"
		st.PairingCode = "215386"
		st.SetupURL = "http://192.168.1.23:8080/"
	case NoNetwork:
		st.Address = ""
		st.Detail = "no address"
	case StorageMissing:
		st.Detail = "/perm read-only"
	case EngineFailed:
		st.Detail = "Egaroucid: exited with status 139"
	case InGame:
		st.Game = Game{
			Opponent: "edax-lv5",
			Mode:     "std",
			Legs: []Leg{
				{Mine: 34, Theirs: 21, MyClock: 41*time.Second + 300*time.Millisecond, MyTurn: true},
				{Mine: 18, Theirs: 29, MyClock: 52 * time.Second},
			},
		}
	}
	return st
}

// Preview scales for the PNGs.
const (
	oledPreviewScale = 3
	lcdPreviewScale  = 2
)

// Preview writes the screen of st on display d as a PNG: the OLED's
// pixels (scaled up, lit pixels light blue on black) or the LCD's
// character grid (5×8 cells, scaled up, on a green backlight).
func Preview(w io.Writer, st Status, d Display, v View) error {
	img, err := previewImage(st, d, v, oledPreviewScale, lcdPreviewScale)
	if err != nil {
		return err
	}
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("preview: %w", err)
	}
	return nil
}

// previewImage draws the preview at the given scales.
func previewImage(st Status, d Display, v View, oledScale, lcdScale int) (image.Image, error) {
	switch d {
	case DisplaySSD1306, DisplaySH1106:
		return oledPreview(RenderOLED(st, image.Pt(128, 64), v), oledScale), nil
	case DisplaySSD130632:
		return oledPreview(RenderOLED(st, image.Pt(128, 32), v), oledScale), nil
	case DisplayLCD1602:
		return lcdPreview(TextLines(st, 16, 2, v), 16, 2, lcdScale), nil
	case DisplayLCD2004:
		return lcdPreview(TextLines(st, 20, 4, v), 20, 4, lcdScale), nil
	}
	return nil, fmt.Errorf("preview: unknown display %q", d)
}

func oledPreview(src *image.Gray, s int) image.Image {
	border := 2 * s
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx()*s+2*border, b.Dy()*s+2*border))
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.RGBA{24, 24, 28, 255}), image.Point{}, draw.Src)
	lit := color.RGBA{150, 220, 255, 255}
	dark := color.RGBA{8, 10, 14, 255}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := dark
			if src.GrayAt(x, y).Y >= 128 {
				c = lit
			}
			fillRect(dst, border+x*s, border+y*s, s, c)
		}
	}
	return dst
}

// lcdPreview draws lines as a character grid: one cell per LCD
// character, text in the 7×13 font, icons from Glyphs, dark on a green
// backlight. It shows what is where, not the LCD's own 5×8 font.
func lcdPreview(lines []string, cols, rows, s int) image.Image {
	const border = 4
	const cellW, cellH = oledCharW + 1, 14
	grid := image.NewGray(image.Rect(0, 0, cols*cellW+2*border, rows*cellH+2*border))
	// 0 = backlight, 64 = empty cell, 255 = dot.
	for r := 0; r < rows; r++ {
		line := ""
		if r < len(lines) {
			line = lines[r]
		}
		for c := 0; c < cols; c++ {
			x, y := border+c*cellW, border+r*cellH
			draw.Draw(grid, image.Rect(x, y, x+cellW-1, y+cellH-1), image.NewUniform(color.Gray{Y: 64}), image.Point{}, draw.Src)
			if c < len(line) {
				drawText(grid, line[c:c+1], x, y+oledAscent, color.Gray{Y: 255})
			}
		}
	}
	back := color.RGBA{120, 190, 40, 255}
	cell := color.RGBA{108, 175, 36, 255}
	dot := color.RGBA{20, 40, 10, 255}
	b := grid.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx()*s, b.Dy()*s))
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			c := back
			switch v := grid.GrayAt(x, y).Y; {
			case v >= 128:
				c = dot
			case v > 0:
				c = cell
			}
			fillRect(dst, x*s, y*s, s, c)
		}
	}
	return dst
}

// fillRect paints the s×s square at (x, y): per-pixel draw.Draw calls
// are slow.
func fillRect(dst *image.RGBA, x, y, s int, c color.RGBA) {
	for j := y; j < y+s; j++ {
		for i := x; i < x+s; i++ {
			dst.SetRGBA(i, j, c)
		}
	}
}
