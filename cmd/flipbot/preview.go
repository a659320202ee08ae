package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"flipbot.dev/flipbot/gpio"
)

// runDisplayPreview runs display-preview: it renders the appliance screen
// of a sample state to a PNG file.
func runDisplayPreview(args []string) int {
	return displayPreview(args, os.Stderr)
}

func displayPreview(args []string, stderr io.Writer) int {
	var kinds []string
	for _, k := range gpio.Kinds() {
		kinds = append(kinds, k.String())
	}
	var displays []string
	for _, d := range gpio.Displays() {
		displays = append(displays, string(d))
	}
	fs := flag.NewFlagSet("display-preview", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := fs.String("state", "online_idle", "state to show: "+strings.Join(kinds, ", "))
	display := fs.String("display", string(gpio.DisplaySSD1306), "display: "+strings.Join(displays, ", "))
	out := fs.String("out", "", "PNG file to write (required)")
	page := fs.Int("page", 0, "page of lines on displays too small for all of them")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: flipbot display-preview [--state STATE] [--display DISPLAY] [--page N] --out FILE.png\n\n"+
			"Render the appliance's screen in STATE on DISPLAY to the PNG file FILE.png.\n\nFlags of flipbot display-preview:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	if fs.NArg() > 0 || *out == "" {
		fs.Usage()
		return 2
	}
	k, err := gpio.ParseKind(*state)
	if err != nil {
		fmt.Fprintf(stderr, "flipbot display-preview: %v\n", err)
		return 2
	}
	d, err := gpio.ParseDisplay(*display)
	if err != nil || d == gpio.DisplayAuto || d == gpio.DisplayNone {
		fmt.Fprintf(stderr, "flipbot display-preview: unknown display %q (%s)\n", *display, strings.Join(displays, ", "))
		return 2
	}
	var buf bytes.Buffer
	if err := gpio.Preview(&buf, gpio.SampleStatus(k), d, gpio.View{Page: *page}); err != nil {
		fmt.Fprintf(stderr, "flipbot display-preview: %v\n", err)
		return 1
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "flipbot display-preview: %v\n", err)
		return 1
	}
	return 0
}
