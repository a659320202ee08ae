package gpio

import (
	"fmt"
	"log/slog"
	"time"
)

// Display names a display type for Config.Display and the
// display-preview command.
type Display string

// The display types.
const (
	DisplayAuto      Display = "auto"       // probe the I²C bus (default)
	DisplayNone      Display = "none"       // no display
	DisplaySSD1306   Display = "ssd1306"    // SSD1306 OLED 128×64
	DisplaySSD130632 Display = "ssd1306-32" // SSD1306 OLED 128×32
	DisplaySH1106    Display = "sh1106"     // SH1106 OLED 128×64 (1.3")
	DisplayLCD1602   Display = "lcd1602"    // HD44780 16×2 on a PCF8574 backpack
	DisplayLCD2004   Display = "lcd2004"    // HD44780 20×4 on a PCF8574 backpack
)

// Displays lists the concrete display types (not auto or none).
func Displays() []Display {
	return []Display{DisplaySSD1306, DisplaySH1106, DisplaySSD130632, DisplayLCD1602, DisplayLCD2004}
}

// ParseDisplay checks a display name ("" means auto).
func ParseDisplay(s string) (Display, error) {
	if s == "" {
		return DisplayAuto, nil
	}
	d := Display(s)
	switch d {
	case DisplayAuto, DisplayNone, DisplaySSD1306, DisplaySSD130632, DisplaySH1106, DisplayLCD1602, DisplayLCD2004:
		return d, nil
	}
	return "", fmt.Errorf("unknown display %q (auto, none, ssd1306, sh1106, ssd1306-32, lcd1602, lcd2004)", s)
}

// isOLED reports whether d is a pixel display.
func (d Display) isOLED() bool {
	return d == DisplaySSD1306 || d == DisplaySSD130632 || d == DisplaySH1106
}

// ACTMode says when the board's ACT LED shows the status.
type ACTMode string

// The ACT modes.
const (
	// ACTAuto uses the ACT LED when none of the three status LED pins is
	// available (disabled in Config, or no GPIO driver). An LED that is
	// simply not wired cannot be detected: set ACTOn then.
	ACTAuto ACTMode = "auto"
	// ACTOn always uses the ACT LED too.
	ACTOn ACTMode = "on"
	// ACTOff leaves the ACT LED to the kernel.
	ACTOff ACTMode = "off"
)

// Config selects the hardware. The zero value means: LEDs on GPIO17
// (green), GPIO27 (yellow), GPIO22 (red), active high; ACT LED as a
// fallback; a display found by probing I²C bus "1".
type Config struct {
	// GreenPin, YellowPin and RedPin name the status LED pins as periph
	// knows them ("GPIO17"); "" means the default, "none" no LED.
	GreenPin, YellowPin, RedPin string
	// ActiveLow is for LEDs wired from 3.3 V to the pin.
	ActiveLow bool
	// ACT says when the on-board ACT LED is used; "" means ACTAuto.
	ACT ACTMode
	// ACTNames are the /sys/class/leds names tried for the ACT LED; nil
	// means "ACT", "led0".
	ACTNames []string

	// I2CBus names the bus of the display; "" means "1" (/dev/i2c-1,
	// the header pins 3 and 5).
	I2CBus string
	// Display selects the display type; "" means DisplayAuto.
	Display Display
	// DisplayAddr is the display's I²C address; 0 probes the usual ones
	// (0x3C, 0x3D for OLEDs; 0x27, 0x3F for LCDs).
	DisplayAddr uint16

	// DimAfter dims an OLED after the Kind of state has not changed for
	// this long (never during a game); 0 means 5 minutes, negative never.
	DimAfter time.Duration
	// ShiftEvery moves the OLED image by a pixel this often; 0 means
	// 1 minute, negative never.
	ShiftEvery time.Duration
	// PageEvery is how long a small display shows each page of lines
	// that do not fit at once; 0 means 4 seconds.
	PageEvery time.Duration
	// BusShare bounds the share of time the display loop keeps the I²C
	// bus busy; 0 means 0.25.
	BusShare float64

	// Log receives the bring-up lines and driver errors; nil means
	// slog.Default().
	Log *slog.Logger
}

func (c Config) withDefaults() Config {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&c.GreenPin, "GPIO17")
	def(&c.YellowPin, "GPIO27")
	def(&c.RedPin, "GPIO22")
	def(&c.I2CBus, "1")
	if c.ACT == "" {
		c.ACT = ACTAuto
	}
	if c.ACTNames == nil {
		c.ACTNames = []string{"ACT", "led0"}
	}
	if c.Display == "" {
		c.Display = DisplayAuto
	}
	if c.DimAfter == 0 {
		c.DimAfter = 5 * time.Minute
	}
	if c.ShiftEvery == 0 {
		c.ShiftEvery = time.Minute
	}
	if c.PageEvery <= 0 {
		c.PageEvery = 4 * time.Second
	}
	if c.BusShare <= 0 || c.BusShare > 1 {
		c.BusShare = 0.25
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	return c
}
