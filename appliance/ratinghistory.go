package appliance

import (
	"log/slog"
	"slices"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/ratings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
)

// ratingRecorder keeps the bot's rating history (appliance/ratings): the
// runner hands it the bot's identity from every report, and a sample is
// kept, on /perm, whenever the rating, the RD or FlipSight's counts of
// results change. A sample out of range (ratings.Sample.Check) is dropped,
// logged once until a good one is kept. Safe for concurrent use; mu guards
// h, failing and refusing.
type ratingRecorder struct {
	file *store.File[ratings.History]
	now  func() time.Time
	log  *slog.Logger

	mu       sync.Mutex
	h        ratings.History
	failing  bool // the last save failed (logged once until one succeeds)
	refusing bool // the last sample was dropped (logged once until one is kept)
}

// newRatingRecorder reads the history kept in dir (an empty one when there
// is none or it is damaged, which is logged, as are the bad samples
// skipped).
func newRatingRecorder(dir string, fs store.FS, log *slog.Logger) *ratingRecorder {
	f := ratings.NewFile(dir)
	f.FS = fs
	h, err := f.Load()
	if err != nil {
		log.Warn("rating history unreadable; starting a new one", "err", err)
	}
	if h.Skipped > 0 {
		log.Warn("rating history: bad samples skipped", "file", f.Path(), "skipped", h.Skipped, "kept", len(h.Samples))
		h.Skipped = 0
	}
	return &ratingRecorder{file: f, now: time.Now, log: log, h: h}
}

// observe samples the bot's rating from a report (the bot's goroutine): a
// bot without an id or a rating is not sampled.
func (r *ratingRecorder) observe(b state.BotInfo) {
	if b.ID <= 0 || b.Rating <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	changed, err := r.h.Add(b.ID, ratings.Sample{At: r.now().UTC(), Rating: b.Rating, RD: b.RD, Wins: b.Wins, Losses: b.Losses, Draws: b.Draws})
	if err != nil {
		if !r.refusing {
			r.log.Warn("rating sample dropped", "bot", b.ID, "err", err)
		}
		r.refusing = true
		return
	}
	r.refusing = false
	if !changed {
		return
	}
	if err := r.file.Save(r.h); err != nil {
		if !r.failing {
			r.log.Warn("rating history not saved; kept in memory", "err", err)
		}
		r.failing = true
		return
	}
	r.failing = false
}

// history returns a copy of the history as of now: no sample is dated
// after the device's clock (ratings.History.AsOf).
func (r *ratingRecorder) history() ratings.History {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.h
	h.Samples = slices.Clone(h.Samples)
	h.AsOf(r.now().UTC())
	return h
}
