package arena

import (
	"encoding/json"
	"net/http"
	"sort"
	"time"

	"flipbot.dev/flipbot/flipsight"
)

// stream is one open bot-stream connection. Its dirty set and wake channel
// are guarded by Server.mu; the connection's goroutine drains them.
type stream struct {
	bot    *bot
	dirty  map[int64]bool
	wakeup chan struct{}
}

func (st *stream) mark(id int64) {
	st.dirty[id] = true
	st.wake()
}

func (st *stream) wake() {
	select {
	case st.wakeup <- struct{}{}:
	default:
	}
}

// humanEvent is the match of a stream event for a human match: exactly
// {id, kind, room_id}.
type humanEvent struct {
	ID     int64  `json:"id"`
	Kind   string `json:"kind"`
	RoomID int64  `json:"room_id"`
}

// event is one stream line; Match is a *flipsight.Match or a humanEvent.
type event struct {
	Type        string `json:"type"`
	BotID       int64  `json:"bot_id,omitempty"`
	Match       any    `json:"match,omitempty"`
	ServerNowMS int64  `json:"server_now_ms"`
}

// serveStream answers GET /flipsight_api/bot-stream: hello, then a match
// event on every change of one of the bot's matches and a ping every
// PingInterval, until the client goes away or the server closes.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writeJSON(w, http.StatusMethodNotAllowed, flipsight.ErrorResponse{Error: "GET required", ServerNowMS: s.nowMS()})
		return
	}
	token, _ := bearer(r)
	s.mu.Lock()
	b := s.botByToken(token)
	if b == nil {
		s.mu.Unlock()
		s.writeError(w, flipsight.CodeInvalidCredential)
		return
	}
	if s.closed {
		s.mu.Unlock()
		s.writeError(w, flipsight.CodeStorageUnavailable)
		return
	}
	if b.streams >= s.cfg.MaxStreams {
		s.mu.Unlock()
		s.writeError(w, flipsight.CodeTooManyStreams)
		return
	}
	st := &stream{bot: b, dirty: map[int64]bool{}, wakeup: make(chan struct{}, 1)}
	b.streams++
	s.streams[st] = struct{}{}
	s.log.Info("stream opened", "bot", b.name, "streams", b.streams)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.streams, st)
		b.streams--
		if b.streams == 0 {
			b.streamEndMS = s.nowMS()
		}
		s.log.Info("stream closed", "bot", b.name, "streams", b.streams)
		s.mu.Unlock()
	}()

	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)
	send := func(evs []event) bool {
		for _, e := range evs {
			_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if err := enc.Encode(e); err != nil {
				return false
			}
		}
		return rc.Flush() == nil
	}
	lastPing := s.nowMS()
	if !send([]event{{Type: flipsight.EventHello, BotID: b.id, ServerNowMS: lastPing}}) {
		return
	}
	// A real-time safety net: wake at least every second even without Tick.
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case <-st.wakeup:
		case <-t.C:
		}
		var evs []event
		evs, lastPing = s.pending(st, lastPing)
		if len(evs) > 0 && !send(evs) {
			return
		}
	}
}

// pending collects a stream's due events: its changed matches, and a ping
// when one is due.
func (s *Server) pending(st *stream, lastPing int64) ([]event, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.nowMS()
	var evs []event
	ids := make([]int64, 0, len(st.dirty))
	for id := range st.dirty {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		delete(st.dirty, id)
		m := s.matches[id]
		if m == nil {
			continue
		}
		var mv any
		if m.human {
			mv = humanEvent{ID: m.id, Kind: flipsight.KindHuman, RoomID: m.roomID}
		} else {
			w := s.wireMatch(m, now)
			mv = &w
		}
		evs = append(evs, event{Type: flipsight.EventMatch, Match: mv, ServerNowMS: now})
	}
	if now-lastPing >= s.cfg.PingInterval.Milliseconds() {
		evs = append(evs, event{Type: flipsight.EventPing, ServerNowMS: now})
		lastPing = now
	}
	return evs, lastPing
}

// sortedMatches returns every match by id (human matches, negative, first).
func (s *Server) sortedMatches() []*match {
	out := make([]*match, 0, len(s.matches))
	for _, m := range s.matches {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}
