package state

// Mirror is what the status LEDs and the display show, as the device
// drives them: the pages draw it. It is computed from the same indicator
// status that drives the pins (the appliance's indicators), not kept in
// the Status.
type Mirror struct {
	// LEDs are the green, yellow and red LEDs in that order.
	LEDs []Light `json:"leds"`
	// Display is the display's screen.
	Display Screen `json:"display"`
}

// Light is one status LED.
type Light struct {
	// Colour is "green", "yellow" or "red".
	Colour string `json:"colour"`
	// Pattern is its pattern's name, such as "slow blink" (gpio/led).
	Pattern string `json:"pattern"`
	// StepsMS are the pattern's lit and dark durations of one period in
	// milliseconds, lit first; empty for "on" and "off".
	StepsMS []int64 `json:"steps_ms,omitempty"`
	// Wired: the pin is driven. An LED that is not still shows what it
	// would show.
	Wired bool `json:"wired"`
}

// Screen is the display's current screen, served as a PNG.
type Screen struct {
	// Type is the display's type, such as "ssd1306" or "lcd2004".
	Type string `json:"type"`
	// Connected: the display is driven; else the screen is what a
	// display of Type would show.
	Connected bool `json:"connected"`
	// Width and Height are the PNG's size in pixels.
	Width  int `json:"width"`
	Height int `json:"height"`
	// Version changes whenever the screen does (the PNG's cache key).
	Version uint64 `json:"version"`
}

// Class is the pattern's name as a CSS class suffix, such as "slow-blink".
func (l Light) Class() string {
	b := []byte(l.Pattern)
	for i, c := range b {
		if c == ' ' {
			b[i] = '-'
		}
	}
	return string(b)
}

// PeriodMS is the length of one period of the pattern in milliseconds (0
// for "on" and "off").
func (l Light) PeriodMS() int64 {
	var sum int64
	for _, s := range l.StepsMS {
		sum += s
	}
	return sum
}
