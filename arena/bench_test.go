package arena

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkPoll: agent_poll through the handler (no network) with two
// running paired matches in the answer.
func BenchmarkPoll(b *testing.B) {
	f := newFixture(b, Config{})
	ca, cb := f.client(b, "ta"), f.client(b, "tb")
	ca.poll()
	cb.poll()
	for i := 0; i < 2; i++ {
		_, ans := ca.call(map[string]any{"action": "agent_challenge", "target_id": 2, "game_mode": "grand"})
		cb.call(map[string]any{"action": "agent_accept", "match_id": ans["match_id"]})
	}
	h := f.srv.Handler()
	body := []byte(`{"action":"agent_poll"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := httptest.NewRequest(http.MethodPost, APIPath, bytes.NewReader(body))
		r.Header.Set("Authorization", "Bearer ta")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkMoveRefused: agent_move answered 409 stale_revision (parse,
// auth, lookup, checks), the cheapest full path through a running match.
func BenchmarkMoveRefused(b *testing.B) {
	f := newFixture(b, Config{})
	ca, cb := f.client(b, "ta"), f.client(b, "tb")
	ca.poll()
	cb.poll()
	_, ans := ca.call(map[string]any{"action": "agent_challenge", "target_id": 2})
	cb.call(map[string]any{"action": "agent_accept", "match_id": ans["match_id"]})
	h := f.srv.Handler()
	body := []byte(`{"action":"agent_move","match_id":1,"leg":0,"revision":7,"move":"d3"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := httptest.NewRequest(http.MethodPost, APIPath, bytes.NewReader(body))
		r.Header.Set("Authorization", "Bearer ta")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 409 {
			b.Fatal(w.Code)
		}
	}
}
