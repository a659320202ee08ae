package flipsight

import (
	"encoding/json"
	"os"
	"testing"
)

func FuzzDecodeEvent(f *testing.F) {
	f.Add([]byte(`{"type":"hello","bot_id":1,"server_now_ms":1800000000000}`))
	f.Add([]byte(`{"type":"match","match":{"id":-45,"kind":"human","room_id":45},"server_now_ms":1}`))
	f.Add([]byte(`{"type":"ping","server_now_ms":1800000010000}`))
	if b, err := os.ReadFile("testdata/poll_response.json"); err == nil {
		var r PollResponse
		if json.Unmarshal(b, &r) == nil && len(r.Matches) > 0 {
			m, _ := json.Marshal(Event{Type: EventMatch, Match: &r.Matches[0], ServerNowMS: 1})
			f.Add(m)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ev, err := DecodeEvent(line)
		if err != nil {
			return
		}
		if ev.Type == "" {
			t.Fatal("decoded an event without type")
		}
		if ev.Type == EventMatch && (ev.Match == nil || ev.Match.ID == 0) {
			t.Fatal("decoded a match event without match")
		}
		if _, err := json.Marshal(ev); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
	})
}

func FuzzDecodeAnswer(f *testing.F) {
	if b, err := os.ReadFile("testdata/poll_response.json"); err == nil {
		f.Add(200, b)
	}
	f.Add(409, []byte(`{"ok":false,"error":"stale_revision","server_now_ms":1}`))
	f.Add(200, []byte(`{"ok":true,"match":{"id":1,"status":"running","bot_a":1,"bot_b":2},"server_now_ms":1}`))
	f.Add(200, []byte(`{"ok":true,"matches":[{"id":1,"state":{"legs":[{"board":[0],"clocks_ms":[1.5],"history":[{"move":"d3"}]}]}}]}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		var p PollResponse
		err := DecodeAnswer(ActionPoll, status, nil, body, &p)
		if err == nil && (status < 200 || status > 299) {
			t.Fatalf("status %d decoded without error", status)
		}
		if err == nil {
			// What the client lets through is what its checks allow.
			for _, m := range p.Matches {
				if m.State == nil {
					continue
				}
				n := m.State.BoardSize
				if n != 8 && n != 10 {
					t.Fatalf("match %d: board_size %d let through", m.ID, n)
				}
				for _, l := range m.State.Legs {
					if len(l.Board) != n*n {
						t.Fatalf("match %d: %d cells on %d×%d let through", m.ID, len(l.Board), n, n)
					}
				}
			}
			for _, b := range p.Bots {
				if len(b.Name) > 4*MaxNameLen {
					t.Fatalf("bot %d: %d-byte name let through", b.ID, len(b.Name))
				}
			}
		}
		var m MatchResponse
		_ = DecodeAnswer(ActionMove, status, nil, body, &m)
		if e := AsAPIError(err); e != nil {
			_ = e.Error()
		}
	})
}

func FuzzMoveJSON(f *testing.F) {
	for _, s := range []string{`19`, `-1`, `"d3"`, `"J0"`, `"pass"`, `1e2`, `19.0`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Move
		if json.Unmarshal(b, &m) != nil {
			return
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("marshal %#v: %v", m, err)
		}
		var back Move
		if err := json.Unmarshal(out, &back); err != nil || back != m {
			t.Fatalf("round trip %s → %s → %#v (%v)", b, out, back, err)
		}
	})
}
