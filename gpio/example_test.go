package gpio_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"flipbot.dev/flipbot/gpio"
)

// The appliance opens the indicators once and calls Show on every change.
func Example() {
	ctx := context.Background()
	ind := gpio.Open(ctx, gpio.Config{}) // absent hardware is logged and skipped
	defer ind.Close()

	ind.Show(gpio.Status{Kind: gpio.Connecting, BotName: "flipbot-pi", Address: "192.168.1.23"})
	ind.Show(gpio.Status{Kind: gpio.InGame, Game: gpio.Game{
		Opponent: "edax-lv5",
		Mode:     "std",
		Legs: []gpio.Leg{
			{Mine: 34, Theirs: 21, MyClock: 41 * time.Second, MyTurn: true},
			{Mine: 18, Theirs: 29, MyClock: 52 * time.Second},
		},
	}})
}

// TextLines is what a character display shows; bytes 0–7 are icons.
func ExampleTextLines() {
	st := gpio.Status{Kind: gpio.SetupNeeded, PairingCode: "480917", SetupURL: "http://192.168.1.23:8080/"}
	for _, l := range gpio.TextLines(st, 20, 4, gpio.View{}) {
		fmt.Printf("|%-20s|\n", strings.ReplaceAll(l, string(gpio.IconLock), "#"))
	}
	// Output:
	// |#Setup needed       |
	// |code 480917         |
	// |192.168.1.23:8080   |
	// |open in a browser   |
}

func ExampleLEDPatterns() {
	for _, k := range []gpio.Kind{gpio.OnlineIdle, gpio.InGame, gpio.SetupNeeded} {
		g, y, r := gpio.LEDPatterns(gpio.Status{Kind: k})
		fmt.Printf("%-12s green %-10s yellow %-10s red %s\n", k, g, y, r)
	}
	// Output:
	// online_idle  green on         yellow off        red off
	// in_game      green on         yellow slow blink red off
	// setup_needed green off        yellow off        red double blink
}
