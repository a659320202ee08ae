// Package ratings keeps the bot's FlipSight rating over time: a sample
// (rating, RD, and the wins, losses and draws FlipSight counts) each time
// a poll shows a change, kept on /perm in one bounded JSON file written
// atomically (appliance/store), for the status page's graph.
//
// The file is read as hostile input: Parse refuses a file over MaxBytes
// unread, more than MaxSamples samples, values out of range and samples
// out of time order.
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

// Sample is the bot's rating as one poll showed it.
type Sample struct {
	At     time.Time `json:"at"`
	Rating float64   `json:"rating"`
	RD     float64   `json:"rd"`
	Wins   int       `json:"wins"`
	Losses int       `json:"losses"`
	Draws  int       `json:"draws"`
}

// same reports whether s and o show the same rating and counts.
func (s Sample) same(o Sample) bool {
	return s.Rating == o.Rating && s.RD == o.RD && s.Wins == o.Wins && s.Losses == o.Losses && s.Draws == o.Draws
}

// History is one bot's samples, oldest first.
type History struct {
	// Bot is the FlipSight id of the bot the samples are of.
	Bot     int64    `json:"bot_id"`
	Samples []Sample `json:"samples"`
}

// Add appends s, a sample of bot, when it differs from the last one: a new
// bot starts a new history. The oldest samples go past MaxSamples. It
// reports whether the history changed.
func (h *History) Add(bot int64, s Sample) bool {
	if bot != h.Bot {
		h.Bot, h.Samples = bot, nil
	}
	if n := len(h.Samples); n > 0 && (h.Samples[n-1].same(s) || s.At.Before(h.Samples[n-1].At)) {
		return false
	}
	h.Samples = append(h.Samples, s)
	if n := len(h.Samples); n > MaxSamples {
		h.Samples = append([]Sample(nil), h.Samples[n-MaxSamples:]...)
	}
	return true
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

// Parse reads a history written by Encode and checks it: at most MaxBytes,
// at most MaxSamples samples, ratings, RDs and counts finite and within
// 0…10⁶, samples in time order.
func Parse(b []byte) (History, error) {
	if len(b) > MaxBytes {
		return History{}, fmt.Errorf("%w: %d bytes, at most %d", ErrBadHistory, len(b), MaxBytes)
	}
	var h History
	if err := json.Unmarshal(b, &h); err != nil {
		return History{}, fmt.Errorf("%w: %w", ErrBadHistory, err)
	}
	if len(h.Samples) > MaxSamples {
		return History{}, fmt.Errorf("%w: %d samples, at most %d", ErrBadHistory, len(h.Samples), MaxSamples)
	}
	if h.Bot < 0 {
		return History{}, fmt.Errorf("%w: bot id %d", ErrBadHistory, h.Bot)
	}
	for i, s := range h.Samples {
		for _, v := range []float64{s.Rating, s.RD, float64(s.Wins), float64(s.Losses), float64(s.Draws)} {
			if math.IsNaN(v) || v < 0 || v > maxValue {
				return History{}, fmt.Errorf("%w: sample %d: a value out of 0…%g", ErrBadHistory, i+1, maxValue)
			}
		}
		if i > 0 && s.At.Before(h.Samples[i-1].At) {
			return History{}, fmt.Errorf("%w: sample %d is older than the one before", ErrBadHistory, i+1)
		}
	}
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
