package state

import (
	"sync"
	"time"
)

// Hub owns the one [Status] of the appliance. Writers change it with Update;
// readers take copies with Snapshot or wait for changes with Subscribe. It is
// safe for concurrent use; the mutex guards every field.
type Hub struct {
	mu   sync.Mutex
	st   Status
	now  func() time.Time
	subs map[chan struct{}]struct{}
}

// NewHub returns a Hub starting in KindStarting. now is the clock (nil: time.Now).
func NewHub(now func() time.Time) *Hub {
	if now == nil {
		now = time.Now
	}
	h := &Hub{now: now, subs: map[chan struct{}]struct{}{}}
	h.st.Token = TokenNone
	h.st.Kind = KindStarting
	h.st.StateText = KindStarting.Text()
	h.st.Matches, h.st.Results = []Match{}, []Result{}
	h.st.Updated = now()
	return h
}

// Snapshot returns a copy of the current status.
func (h *Hub) Snapshot() Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.st.clone()
}

// Update changes the status under the lock, recomputes the state and wakes
// every subscriber. f must not block.
func (h *Hub) Update(f func(*Status)) {
	h.mu.Lock()
	f(&h.st)
	h.st.Kind = h.st.deriveKind()
	h.st.StateText = h.st.stateText()
	h.st.Updated = h.now()
	if !h.st.Device.Started.IsZero() {
		h.st.Device.UptimeSec = int64(h.st.Updated.Sub(h.st.Device.Started) / time.Second)
	}
	for c := range h.subs {
		select {
		case c <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
	h.mu.Unlock()
}

// Subscribe returns a channel that receives a value after every change
// (changes in quick succession may be merged into one wake-up) and a
// function that ends the subscription.
func (h *Hub) Subscribe() (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	h.mu.Lock()
	h.subs[c] = struct{}{}
	h.mu.Unlock()
	return c, func() {
		h.mu.Lock()
		delete(h.subs, c)
		h.mu.Unlock()
	}
}
