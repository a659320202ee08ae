package arena

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"flipbot.dev/flipbot/flipsight"
)

// FuzzDecodeRequest: any body decodes to a request or to the spec's 400.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"action":"agent_poll","environment":{"cpu":"x","practice":true}}`,
		`{"action":"agent_move","match_id":1,"leg":0,"revision":0,"move":"d3"}`,
		`{"action":"agent_move","match_id":-3,"leg":0,"revision":2,"move":19,"round_no":1,"room_created_at":"2026-01-01 00:00:00"}`,
		`{"action":"agent_challenge","target_name":"beta","game_mode":"anti"}`,
		`[]`, `{`, `null`, `{"action":1}`, `{"move":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeRequest(body)
		if err != nil {
			if err.code != flipsight.CodeJSONObjectRequired && err.code != flipsight.CodeUnknownAction {
				t.Fatalf("decode error %q is not a 400 of the spec", err.code)
			}
			return
		}
		if req == nil {
			t.Fatal("nil request without error")
		}
		if len(req.Move) > 0 {
			for _, size := range []int{8, 10} {
				mv, code := parseMove(req.Move, size)
				if code == "" && (mv < -1 || mv >= size*size) {
					t.Fatalf("move %s parsed to %d outside the %d board", req.Move, mv, size)
				}
			}
		}
	})
}

// FuzzAPI: any body through the whole handler gets a JSON answer with a
// status of the spec, and never a panic.
func FuzzAPI(f *testing.F) {
	fx := newFixture(f, Config{})
	a := fx.client(f, "ta")
	b := fx.client(f, "tb")
	a.poll()
	b.poll()
	_, ans := a.call(map[string]any{"action": "agent_challenge", "target_id": 2})
	b.call(map[string]any{"action": "agent_accept", "match_id": ans["match_id"]})
	h := fx.srv.Handler()
	for _, s := range []string{
		`{"action":"agent_move","match_id":1,"leg":0,"revision":0,"move":"d3"}`,
		`{"action":"agent_move","match_id":1,"leg":1,"revision":0,"move":-1}`,
		`{"action":"agent_accept","match_id":1}`,
		`{"action":"agent_reject","match_id":-1}`,
		`{"action":"agent_challenge","target_id":2,"game_mode":"grand"}`,
		`{"action":"agent_poll"}`,
	} {
		f.Add([]byte(s))
	}
	ok := map[int]bool{200: true, 400: true, 403: true, 409: true, 413: true, 503: true}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, APIPath, bytes.NewReader(body))
		r.Header.Set("Authorization", "Bearer ta")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if !ok[w.Code] {
			t.Fatalf("status %d for %q", w.Code, body)
		}
		if !bytes.HasPrefix(w.Body.Bytes(), []byte(`{"ok":`)) {
			t.Fatalf("answer %q is not the spec's object", w.Body.Bytes())
		}
	})
}

// FuzzParseFlags: the --bot and --builtin parsers never panic, and what
// they accept is a valid bot.
func FuzzParseFlags(f *testing.F) {
	for _, s := range []string{"alpha:tok", "alpha:tok:std,anti", "house", "house:3", "house:60:all", "a:b:c:d", "::", "x:y:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := ParseBotFlag(s); err == nil {
			if checkName(b.Name) != nil || b.Token == "" {
				t.Fatalf("accepted an invalid bot %q", s)
			}
		}
		if b, err := ParseBuiltinFlag(s); err == nil {
			if checkName(b.Name) != nil || b.Level < 0 || b.Level > LevelMax || len(b.Modes) == 0 {
				t.Fatalf("accepted an invalid built-in %q", s)
			}
		}
	})
}

// FuzzAdmin: any body to the admin hooks gets an answer, never a panic.
func FuzzAdmin(f *testing.F) {
	fx := newFixture(f, Config{Bots: []BotConfig{{Name: "house", Builtin: true, Level: 0}}})
	h := fx.srv.Handler()
	f.Add("human", []byte(`{"bot":"alpha","mode":"grand","clock_ms":5000}`))
	f.Add("challenge", []byte(`{"from":"house","to":"alpha","mode":"std"}`))
	f.Add("human", []byte(`{"bot":"alpha","xot":true,"clock_ms":-1}`))
	f.Fuzz(func(t *testing.T, path string, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/arena/admin/human", bytes.NewReader(body))
		if path == "challenge" {
			r.URL.Path = "/arena/admin/challenge"
		}
		r.RemoteAddr = "127.0.0.1:1"
		r.Host = "127.0.0.1:8080"
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 && w.Code != 400 && w.Code != 409 {
			t.Fatalf("status %d for %q", w.Code, body)
		}
	})
}
