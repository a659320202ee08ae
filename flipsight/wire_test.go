package flipsight

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPollResponseDecodesSpecExample(t *testing.T) {
	b, err := os.ReadFile("testdata/poll_response.json")
	require.NoError(t, err)
	var r PollResponse
	require.NoError(t, json.Unmarshal(b, &r))

	assert.True(t, r.OK)
	assert.Equal(t, int64(1800000000000), r.ServerNowMS)
	assert.Equal(t, Text("example"), r.Me)
	require.NotNil(t, r.Bot)
	assert.Equal(t, int64(2), r.Bot.ID)
	assert.Equal(t, "MyBot", r.Bot.Name)
	assert.True(t, r.Bot.Supports(ModeAnti))
	assert.False(t, r.Bot.Supports(ModeGrand))
	require.NotNil(t, r.Bot.Rating)
	assert.Equal(t, 1200.0, r.Bot.Rating.Rating)
	require.NotNil(t, r.Bot.Environment)
	assert.Equal(t, "Apple M4", r.Bot.Environment.CPU)
	require.Len(t, r.Bots, 2)

	require.Len(t, r.Matches, 1)
	m := r.Matches[0]
	assert.Equal(t, int64(123), m.ID)
	assert.Equal(t, MatchRunning, m.Status)
	assert.False(t, m.IsHuman())
	assert.Equal(t, 1, m.Participant(2))
	assert.Equal(t, 0, m.Participant(1))
	assert.Equal(t, -1, m.Participant(7))
	require.NotNil(t, m.State)
	st := m.State
	assert.Equal(t, 8, st.BoardSize)
	assert.Nil(t, st.Winner)
	assert.Nil(t, st.FinishReason)
	assert.Equal(t, []int{14, 11}, st.Totals)
	require.Len(t, st.OpeningHistory, 8)
	assert.Equal(t, SquareMove(19), st.OpeningHistory[0].Move)
	assert.Nil(t, st.OpeningHistory[0].Participant)
	require.Len(t, st.Legs, 2)
	l0 := st.Legs[0]
	assert.Len(t, l0.Board, 64)
	assert.Equal(t, White, l0.Turn)
	assert.Equal(t, Placed{Black: 5, White: 4}, l0.Placed)
	assert.Equal(t, []float64{55800, 60000}, l0.ClocksMS)
	assert.Equal(t, int64(1), l0.Revision)
	require.Len(t, l0.History, 1)
	require.NotNil(t, l0.History[0].Participant)
	assert.Equal(t, 0, *l0.History[0].Participant)
	assert.Equal(t, SquareMove(44), l0.History[0].Move)
	assert.Nil(t, l0.ResultDiscs)
	assert.Equal(t, []int{18, 21, 22, 25, 30, 33, 38, 42, 50, 51, 52}, l0.LegalMoves)
	assert.Equal(t, 1, st.Legs[1].BlackParticipant)
}

func TestPollResponseRoundTrip(t *testing.T) {
	b, err := os.ReadFile("testdata/poll_response.json")
	require.NoError(t, err)
	var r1, r2 PollResponse
	require.NoError(t, json.Unmarshal(b, &r1))
	out, err := json.Marshal(r1)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(out, &r2))
	assert.Equal(t, r1, r2)
}

func TestMoveJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    Move
		wantErr bool
	}{
		{in: `19`, want: SquareMove(19)},
		{in: `-1`, want: Pass},
		{in: `0`, want: SquareMove(0)},
		{in: `99.0`, want: SquareMove(99)},
		{in: `"d3"`, want: TextMove("d3")},
		{in: `"pass"`, want: TextMove("pass")},
		{in: `"--"`, want: TextMove("--")},
		{in: `19.5`, wantErr: true},
		{in: `""`, wantErr: true},
		{in: `null`, wantErr: true},
		{in: `true`, wantErr: true},
		{in: `[19]`, wantErr: true},
		{in: `{"x":1}`, wantErr: true},
		{in: `99999999999999999999`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var m Move
			err := json.Unmarshal([]byte(tt.in), &m)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, m)
			out, err := json.Marshal(m)
			require.NoError(t, err)
			var back Move
			require.NoError(t, json.Unmarshal(out, &back))
			assert.Equal(t, m, back)
		})
	}
}

func TestMoveRequestEncoding(t *testing.T) {
	round := int64(3)
	created := "2026-12-01 10:00:00"
	tests := []struct {
		name string
		req  MoveRequest
		want string
	}{
		{
			name: "bot-vs-bot integer, leg 0 revision 0 present",
			req:  MoveRequest{Action: ActionMove, MatchID: 123, Leg: 0, Revision: 0, Move: SquareMove(19)},
			want: `{"action":"agent_move","match_id":123,"leg":0,"revision":0,"move":19}`,
		},
		{
			name: "pass",
			req:  MoveRequest{Action: ActionMove, MatchID: 123, Leg: 1, Revision: 7, Move: Pass},
			want: `{"action":"agent_move","match_id":123,"leg":1,"revision":7,"move":-1}`,
		},
		{
			name: "human echoes round_no and room_created_at, string move",
			req: MoveRequest{Action: ActionMove, MatchID: -45, RoundNo: &round, RoomCreatedAt: &created,
				Leg: 0, Revision: 2, Move: TextMove("d3")},
			want: `{"action":"agent_move","match_id":-45,"round_no":3,"room_created_at":"2026-12-01 10:00:00","leg":0,"revision":2,"move":"d3"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.req)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

func TestPollRequestEncoding(t *testing.T) {
	b, err := json.Marshal(PollRequest{Action: ActionPoll,
		Environment: &Environment{CPU: "Apple M4", OS: "Darwin", Engine: "MyEngine"}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"action":"agent_poll","environment":{"cpu":"Apple M4","os":"Darwin","engine":"MyEngine","practice":false}}`, string(b))
}

func TestNullableStateFieldsEncodeAsNull(t *testing.T) {
	b, err := json.Marshal(MatchState{GameMode: ModeStd, Status: StateActive})
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for _, k := range []string{"winner", "finish_reason", "finished_ms"} {
		v, ok := m[k]
		assert.True(t, ok, k)
		assert.Nil(t, v, k)
	}
	w := 1
	b, err = json.Marshal(MatchState{Winner: &w})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"winner":1`)
}

func TestEventsDecode(t *testing.T) {
	b, err := os.ReadFile("testdata/stream.ndjson")
	require.NoError(t, err)
	dec := json.NewDecoder(bytesReader(b))
	var evs []Event
	for dec.More() {
		var e Event
		require.NoError(t, dec.Decode(&e))
		evs = append(evs, e)
	}
	require.Len(t, evs, 3)
	assert.Equal(t, EventHello, evs[0].Type)
	assert.Equal(t, int64(1), evs[0].BotID)
	assert.Equal(t, EventMatch, evs[1].Type)
	require.NotNil(t, evs[1].Match)
	assert.True(t, evs[1].Match.IsHuman())
	assert.Equal(t, int64(45), evs[1].Match.RoomID)
	assert.Equal(t, EventPing, evs[2].Type)
	assert.Equal(t, int64(1800000010000), evs[2].ServerNowMS)
}

func TestErrorHelpers(t *testing.T) {
	tests := []struct {
		code                                          ErrorCode
		stale, illegal, conflict, auth, retry, ratelm bool
	}{
		{code: CodeStaleRevision, stale: true, conflict: true},
		{code: CodeNotYourTurn, stale: true, conflict: true},
		{code: CodeLegFinished, stale: true, conflict: true},
		{code: CodeIllegalMove, illegal: true, conflict: true},
		{code: CodeMoveOutsideBoard, illegal: true, conflict: true},
		{code: CodeBotBusy, conflict: true},
		{code: CodeInvalidCredential, auth: true},
		{code: CodeTooManyStreams, retry: true, ratelm: true},
		{code: CodeStorageUnavailable, retry: true},
		{code: CodeUnknownAction},
		{code: CodeRequestTooLarge},
	}
	for _, tt := range tests {
		t.Run(string(tt.code), func(t *testing.T) {
			err := fmt.Errorf("wrapped: %w", &APIError{Op: ActionMove, Status: StatusFor(tt.code), Code: tt.code})
			assert.Equal(t, tt.stale, IsStale(err), "stale")
			assert.Equal(t, tt.illegal, IsIllegal(err), "illegal")
			assert.Equal(t, tt.conflict, IsConflict(err), "conflict")
			assert.Equal(t, tt.auth, IsAuth(err), "auth")
			assert.Equal(t, tt.retry, IsRetryable(err), "retryable")
			assert.Equal(t, tt.ratelm, IsRateLimited(err), "rate limited")
			assert.Contains(t, err.Error(), string(tt.code))
		})
	}
	assert.Equal(t, http.StatusBadRequest, StatusFor("something new"))
	assert.False(t, IsRetryable(nil))
	assert.True(t, IsRetryable(fmt.Errorf("dial: connection refused")))
	assert.False(t, IsRetryable(ErrNoToken))
}

func TestTextToleratesNumbers(t *testing.T) {
	var r PollResponse
	require.NoError(t, json.Unmarshal([]byte(`{"ok":true,"me":12345,"bot":{"id":2,"name":"x","owner_id":null,"owner":{"player_id":7}}}`), &r))
	assert.Equal(t, Text("12345"), r.Me)
	assert.Equal(t, Text(""), r.Bot.OwnerID)
	assert.Equal(t, Text("7"), r.Bot.Owner.PlayerID)
	require.Error(t, json.Unmarshal([]byte(`{"me":[1]}`), &r))
	b, err := json.Marshal(PollResponse{Me: "local"})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"me":"local"`)
}

func TestIntegralFloatsDecodeIntoIntegers(t *testing.T) {
	var r MatchResponse
	err := DecodeAnswer(ActionMove, 200, nil,
		[]byte(`{"ok":true,"match":{"id":123.0,"status":"running","bot_a":1,"bot_b":2e0},"server_now_ms":1.8e12}`), &r)
	require.NoError(t, err)
	assert.Equal(t, int64(1800000000000), r.ServerNowMS)
	assert.Equal(t, int64(123), r.Match.ID)
	assert.Equal(t, int64(2), r.Match.BotB)
	ev, err := DecodeEvent([]byte(`{"type":"ping","server_now_ms":1800000010000.0}`))
	require.NoError(t, err)
	assert.Equal(t, int64(1800000010000), ev.ServerNowMS)
	err = DecodeAnswer(ActionMove, 200, nil, []byte(`{"ok":true,"server_now_ms":1.5}`), &r)
	assert.Error(t, err, "a fraction where an integer belongs is still an error")
}
