// Package gpio shows the appliance's status on hardware: three status
// LEDs (or the board's ACT LED) and an optional small I²C display, an
// SSD1306/SH1106 OLED or an HD44780 LCD on a PCF8574 backpack.
//
// # Use
//
// The appliance converts its own state into a Status (its states mapped
// onto Kind) and hands it over; nothing here knows about the appliance,
// its files or its signals:
//
//	ind := gpio.Open(ctx, gpio.Config{})   // never fails; absent hardware is logged and skipped
//	defer ind.Close()                      // LEDs off, display asleep, ACT LED back to the kernel
//	ind.Show(gpio.Status{Kind: gpio.SetupNeeded, PairingCode: "480917", SetupURL: "http://192.168.1.23:8080/"})
//	...
//	ind.Show(gpio.Status{Kind: gpio.InGame, Game: gpio.Game{Opponent: "edax-l5", Mode: "std", Legs: legs}})
//
// Show never blocks: the LEDs are timed by one goroutine, the display is
// drawn by another, the latest Status wins, and the display loop keeps the
// I²C bus busy at most Config.BusShare of the time (a full OLED frame is
// ≈93 ms at 100 kHz; only changed pages or rows are sent). Call Show on
// every change; a repeated equal Status costs nothing. In a game, MyClock
// is the remaining time at the moment of Show, and the display counts
// down the clock of every leg where it is our move by itself, so the
// appliance need not call Show every second.
//
// # LEDs
//
// Default pins GPIO17 green, GPIO27 yellow, GPIO22 red (active high);
// LEDPatterns gives the table, ACTPattern the single-LED fallback:
//
//	state            green        yellow      red           ACT
//	starting         heartbeat    off         off           slow blink
//	waiting_clock    heartbeat    off         off           slow blink
//	connecting       slow blink   off         off           slow blink
//	stopping         off          heartbeat   off           slow blink
//	online_idle      on           off         off           on
//	in_game          on           slow blink  off           heartbeat
//	setup_needed     off          off         double blink  double blink
//	token_rejected   off          off         fast blink    fast blink
//	no_network       off          off         slow blink    slow blink
//	storage_missing  off          off         on            fast blink
//	engine_failed    off          on          fast blink    fast blink
//
// Every error code is at most two flashes per period; none resembles the
// Pi firmware's long/short ACT codes.
//
// # Screens
//
// RenderOLED (a 1-bit image) and TextLines (rows of text with the icon
// codes of Glyphs) are pure functions of a Status and a View; the
// display-preview command writes them as PNG (Preview). An OLED dims
// after Config.DimAfter without a change of state (not in a game) and
// its image walks over a few pixel positions every Config.ShiftEvery
// against burn-in. Displays too small for every line (128×32, 16×2) page
// through the body lines every Config.PageEvery.
//
// # Layout
//
// Sub-packages hold the drivers, which take an i2c.Bus or gpio outputs
// and never open devices: led (patterns, the sysfs ACT LED), ssd1306,
// hd44780. Open in this package is the one place that opens hardware
// (periph's gpio character device and sysfs drivers, I²C bus "1"); New
// takes already opened Devices, as the tests do.
//
// # Files
//
//   - status.go: [Status], [Kind], [Game], [Leg]: what the appliance hands
//     over.
//   - indicators.go: [Indicators], [New], [Indicators.Show]: the LED and
//     display goroutines.
//   - bringup.go: [Open], [Probe], [OpenDisplay]: the one place that opens
//     hardware.
//   - config.go: [Config], [Display], [ACTMode].
//   - leds.go: [LEDPatterns], [ACTPattern].
//   - content.go, render_oled.go, screen.go: what the screens say
//     ([TextLines], [View], [Glyphs]), the OLED image ([RenderOLED]), the
//     OLED and the LCD behind one screen type.
//   - preview.go: [Preview], the screens as PNG.
//
// # Imports
//
// It may import its drivers, gpio/led, gpio/ssd1306 and gpio/hd44780 (and
// periph.io); nothing of the appliance, bot or config: the appliance maps
// its own state onto a Status. Its tests use internal/clock/clocktest.
package gpio
