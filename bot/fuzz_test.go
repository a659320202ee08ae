package bot

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// FuzzObserveMatch feeds arbitrary match objects, as a poll or a stream
// event could carry them, through the bot's state handling, status and
// move preparation: nothing may panic.
func FuzzObserveMatch(f *testing.F) {
	if b, err := os.ReadFile("../flipsight/testdata/poll_response.json"); err == nil {
		var r flipsight.PollResponse
		if json.Unmarshal(b, &r) == nil {
			for _, m := range r.Matches {
				out, _ := json.Marshal(m)
				f.Add(out)
				m.Status = flipsight.MatchFinished
				out, _ = json.Marshal(m)
				f.Add(out)
			}
		}
	}
	f.Add([]byte(`{"id":5,"bot_a":1,"bot_b":2,"status":"running","state":{"game_mode":"grand","legs":[{"board":[1],"turn":2,"black_participant":1,"clocks_ms":[1],"legal_moves":[-5,1000,3],"status":"active"}],"totals":[1],"winner":3}}`))
	f.Add([]byte(`{"id":-4,"kind":"human","bot_a":2,"bot_b":0,"status":"pending","game_mode":"chess"}`))
	tok, _ := flipsight.NewToken("fsbm_fuzz")
	c, err := flipsight.NewClient(flipsight.Config{APIURL: "http://127.0.0.1:1/api", Token: tok})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m flipsight.Match
		if json.Unmarshal(data, &m) != nil {
			return
		}
		b, err := New(Options{Client: c, Engine: factoryOf(&fakeEngine{}, Shared), Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		b.me = 2
		b.quitting = true // no network: nothing is accepted or sent
		now := time.Now()
		b.observe(m, 1800000000000, now)
		_ = b.buildStatus(StateOnline)
		for _, tm := range b.matches {
			for i, ls := range tm.legs {
				l := ls.leg
				j := moveJob{key: legKey{tm.id, i}, leg: l, color: tm.myColor(&l), modeName: tm.modeName, mode: tm.mode,
					modeOK: tm.modeOK, size: boardSize(tm, &l), serverNow: ls.serverNow, arrived: ls.arrived}
				if st := tm.obj.State; st != nil {
					j.blocked = st.BlockedSquares
				}
				var pos *othello.Position
				if j.modeOK {
					if p, err := (othello.Leg{Board: l.Board, Turn: l.Turn, Placed: othello.Placed(l.Placed),
						LegalMoves: l.LegalMoves}).Position(j.modeName, j.size, j.blocked); err == nil {
						pos = &p
						_ = b.wireRequest(j, p, engines.Request{Remaining: time.Second, At: time.Now(), Cap: time.Second})
					}
				}
				quickMove(pos, l.LegalMoves, nil)
			}
			b.finish(tm, &m)
		}
	})
}
