// Package ratings keeps the bot's FlipSight rating over time: a sample
// (rating, RD, and the wins, losses and draws FlipSight counts) each time
// a poll shows a change, kept on /perm in one bounded JSON file written
// atomically (appliance/store), for the status page's graph.
//
// The file is read as hostile input, and so is every sample before it is
// kept (Add): a sample whose values are out of range is dropped alone
// (Sample.Check), never the history with it. Parse refuses a file over
// MaxBytes unread and one that is not the history's JSON, and skips the
// bad samples of one that is, and the oldest beyond MaxSamples. The order
// of the samples is the order they were taken; their times are only as
// good as the clock that took them: a sample dated after a later one (a
// clock once far ahead, a hand-edited file) is re-dated to the later
// one's time, so that a date in the future neither stops the history nor
// sorts it wrong; AsOf shows the samples dated after the device's clock as
// of now.
//
// It may import appliance/store (the atomic file), and nothing else of
// the appliance.
package ratings

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"flipbot.dev/flipbot/appliance/store"
)

// FileName is the history's file in the appliance's directory.
const FileName = "rating-history.json"

// Bounds of a history.
const (
	// MaxSamples is the most samples kept: the oldest go first.
	MaxSamples = 1000
	// MaxBytes bounds the file: MaxSamples samples take about a third.
	MaxBytes = 256 << 10
	// maxValue bounds a rating, an RD and a count.
	maxValue = 1e6
)

// minUnix is the earliest time a sample may have, 2020-01-01T00:00:00Z in
// Unix seconds: none is older than flipbot; an older one comes from a
// clock that was not set.
const minUnix = 1577836800

// Sample is the bot's rating as one poll showed it.
type Sample struct {
	At     time.Time `json:"at"`
	Rating float64   `json:"rating"`
	RD     float64   `json:"rd"`
	Wins   int       `json:"wins"`
	Losses int       `json:"losses"`
	Draws  int       `json:"draws"`
}

// ErrBadSample is wrapped by Check's errors.
var ErrBadSample = errors.New("bad rating sample")

// Check reports whether s can be kept: rating, RD and counts finite and
// within 0…10⁶, and a time no earlier than 2020 (a clock that was not set)
// and one JSON can write (years up to 9999). The error names the field
// and its value.
func (s Sample) Check() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"rating", s.Rating}, {"rd", s.RD}, {"wins", float64(s.Wins)}, {"losses", float64(s.Losses)}, {"draws", float64(s.Draws)}} {
		if math.IsNaN(f.v) || f.v < 0 || f.v > maxValue {
			return fmt.Errorf("%w: %s %g out of 0…%g", ErrBadSample, f.name, f.v, maxValue)
		}
	}
	if s.At.Unix() < minUnix || s.At.Year() > 9999 {
		return fmt.Errorf("%w: time %s out of 2020…9999", ErrBadSample, s.At.UTC().Format(time.RFC3339))
	}
	return nil
}

// same reports whether s and o show the same rating and counts.
func (s Sample) same(o Sample) bool {
	return s.Rating == o.Rating && s.RD == o.RD && s.Wins == o.Wins && s.Losses == o.Losses && s.Draws == o.Draws
}

// History is one bot's samples, in the order they were taken, their times
// never decreasing.
type History struct {
	// Bot is the FlipSight id of the bot the samples are of.
	Bot     int64    `json:"bot_id"`
	Samples []Sample `json:"samples"`
	// Skipped counts the samples Parse skipped (bad ones, and the oldest
	// beyond MaxSamples); it is not kept in the file.
	Skipped int `json:"-"`
}

// Add appends s, a sample of bot, when it differs from the last one: a new
// bot starts a new history. A sample that fails Check is not kept: Add
// returns its error. Samples dated after s (by a clock that was ahead) are
// re-dated to s's time, s being the newest. The oldest samples go past
// MaxSamples. It reports whether the history changed.
func (h *History) Add(bot int64, s Sample) (bool, error) {
	if err := s.Check(); err != nil {
		return false, err
	}
	if bot != h.Bot {
		h.Bot, h.Samples = bot, nil
	}
	if n := len(h.Samples); n > 0 && h.Samples[n-1].same(s) {
		return false, nil
	}
	h.Samples = append(h.Samples, s)
	redate(h.Samples)
	if n := len(h.Samples); n > MaxSamples {
		h.Samples = append([]Sample(nil), h.Samples[n-MaxSamples:]...)
	}
	return true, nil
}

// AsOf re-dates, in place, the samples dated after now (by a clock that
// was ahead, or a hand-edited file) to now, so that a graph drawn now does
// not reach into the future; their order stays. A now before the first
// sample (a clock not set yet) changes nothing.
func (h *History) AsOf(now time.Time) {
	if len(h.Samples) == 0 || now.Before(h.Samples[0].At) {
		return
	}
	for i := len(h.Samples) - 1; i >= 0 && h.Samples[i].At.After(now); i-- {
		h.Samples[i].At = now
	}
}

// redate makes the times of samples, in the order taken, never decrease:
// a sample dated after the one that follows it is re-dated to that one's
// time (the later sample's clock is taken as the better one). One pass,
// from the end.
func redate(samples []Sample) {
	for i := len(samples) - 2; i >= 0; i-- {
		if samples[i].At.After(samples[i+1].At) {
			samples[i].At = samples[i+1].At
		}
	}
}

// The results Result returns.
const (
	Win  = "win"
	Loss = "loss"
	Draw = "draw"
)

// Result returns what FlipSight counted between sample i−1 and sample i:
// Win, Loss or Draw when one count alone went up, "" otherwise (the first
// sample, no result, or several at once).
func (h History) Result(i int) string {
	if i <= 0 || i >= len(h.Samples) {
		return ""
	}
	a, b := h.Samples[i-1], h.Samples[i]
	dw, dl, dd := b.Wins-a.Wins, b.Losses-a.Losses, b.Draws-a.Draws
	switch {
	case dw > 0 && dl == 0 && dd == 0:
		return Win
	case dl > 0 && dw == 0 && dd == 0:
		return Loss
	case dd > 0 && dw == 0 && dl == 0:
		return Draw
	}
	return ""
}

// ErrBadHistory is wrapped by Parse's errors.
var ErrBadHistory = errors.New("bad rating history")

// Parse reads a history written by Encode. It refuses a file over MaxBytes
// unread, one that is not a JSON object with a list of samples, and a
// negative bot id; it skips (and counts in Skipped) each sample that is
// not a JSON sample or fails Check, and the oldest beyond MaxSamples.
// Times out of order are re-dated (see History).
func Parse(b []byte) (History, error) {
	if len(b) > MaxBytes {
		return History{}, fmt.Errorf("%w: %d bytes, at most %d", ErrBadHistory, len(b), MaxBytes)
	}
	var raw struct {
		Bot     int64             `json:"bot_id"`
		Samples []json.RawMessage `json:"samples"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return History{}, fmt.Errorf("%w: %w", ErrBadHistory, err)
	}
	if raw.Bot < 0 {
		return History{}, fmt.Errorf("%w: bot id %d", ErrBadHistory, raw.Bot)
	}
	h := History{Bot: raw.Bot}
	if n := len(raw.Samples); n > MaxSamples {
		h.Skipped, raw.Samples = n-MaxSamples, raw.Samples[n-MaxSamples:]
	}
	for _, r := range raw.Samples {
		var s Sample
		if err := json.Unmarshal(r, &s); err != nil || s.Check() != nil {
			h.Skipped++
			continue
		}
		h.Samples = append(h.Samples, s)
	}
	redate(h.Samples)
	return h, nil
}

// Encode returns the history's file content.
func Encode(h History) ([]byte, error) {
	if h.Samples == nil {
		h.Samples = []Sample{}
	}
	b, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encode rating history: %w", err)
	}
	return append(b, '\n'), nil
}

// NewFile returns the history's file in dir (an empty history when there
// is none, or when it is damaged: Load then says why).
func NewFile(dir string) *store.File[History] {
	return store.NewFile(dir, store.Format[History]{
		Name: FileName, What: "rating history", Encode: Encode, Decode: Parse,
		Default: func() History { return History{} }, MaxBytes: MaxBytes,
	})
}
