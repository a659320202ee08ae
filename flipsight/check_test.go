package flipsight

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// samplePoll returns the sample poll answer decoded as generic JSON, to be
// broken field by field.
func samplePoll(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/poll_response.json")
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(b, &v))
	return v
}

func pollMatch(v map[string]any) map[string]any { return v["matches"].([]any)[0].(map[string]any) }
func pollState(v map[string]any) map[string]any { return pollMatch(v)["state"].(map[string]any) }
func pollLeg(v map[string]any) map[string]any {
	return pollState(v)["legs"].([]any)[0].(map[string]any)
}
func pollBot(v map[string]any) map[string]any { return v["bots"].([]any)[0].(map[string]any) }

func ints(n, v int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestSamplePollPassesChecks(t *testing.T) {
	b, err := os.ReadFile("testdata/poll_response.json")
	require.NoError(t, err)
	var p PollResponse
	require.NoError(t, DecodeAnswer(ActionPoll, 200, nil, b, &p))
	assert.Empty(t, p.Refused)
	assert.Len(t, p.Matches, 1)
	assert.NotEmpty(t, p.Bots)
	require.NotNil(t, p.Bot)
}

// The attacks of issue 14 and their kin: every bad value in a poll answer
// drops its match or bot, and the rest of the answer stays usable.
func TestPollDropsBadObjects(t *testing.T) {
	name2MiB := strings.Repeat("x", 2<<20)
	cases := []struct {
		name   string
		bot    bool // the bad object is bots[0], not matches[0]
		break_ func(v map[string]any)
		want   string
	}{
		{"board_size 3000", false, func(v map[string]any) { pollState(v)["board_size"] = 3000 }, "board_size 3000"},
		{"board_size 100000", false, func(v map[string]any) { pollState(v)["board_size"] = 100000 }, "board_size 100000"},
		{"board_size of another mode", false, func(v map[string]any) { pollState(v)["board_size"] = 10 }, "board_size 10"},
		{"board_size of an unknown mode", false, func(v map[string]any) {
			pollState(v)["game_mode"], pollMatch(v)["game_mode"], pollState(v)["board_size"] = "huge", "huge", 30
		}, "want 8 or 10"},
		{"mode differs", false, func(v map[string]any) { pollState(v)["game_mode"] = "grand" }, "differs"},
		{"board too long", false, func(v map[string]any) { pollLeg(v)["board"] = ints(10_000, 0) }, "10000 cells"},
		{"board too short", false, func(v map[string]any) { pollLeg(v)["board"] = ints(63, 0) }, "63 cells"},
		{"board cell 3", false, func(v map[string]any) { pollLeg(v)["board"].([]any)[5] = 3 }, "cell 5 is 3"},
		{"turn 7", false, func(v map[string]any) { pollLeg(v)["turn"] = 7 }, "turn 7"},
		{"black_participant 2", false, func(v map[string]any) { pollLeg(v)["black_participant"] = 2 }, "black_participant 2"},
		{"legal move outside", false, func(v map[string]any) { pollLeg(v)["legal_moves"] = []any{64} }, "square 64"},
		{"too many legal moves", false, func(v map[string]any) { pollLeg(v)["legal_moves"] = ints(65, 1) }, "65 squares"},
		{"clock huge", false, func(v map[string]any) { pollLeg(v)["clocks_ms"] = []any{1e300, 0} }, "clock"},
		{"three clocks", false, func(v map[string]any) { pollLeg(v)["clocks_ms"] = []any{1, 2, 3} }, "3 clocks"},
		{"discs over the board", false, func(v map[string]any) { pollLeg(v)["discs"] = []any{65, 0} }, "discs 65"},
		{"negative revision", false, func(v map[string]any) { pollLeg(v)["revision"] = -1 }, "revision -1"},
		{"history too long", false, func(v map[string]any) {
			h := make([]any, 200)
			for i := range h {
				h[i] = map[string]any{"color": 1, "move": 19}
			}
			pollLeg(v)["history"] = h
		}, "200 moves"},
		{"history colour", false, func(v map[string]any) {
			pollLeg(v)["history"] = []any{map[string]any{"color": 9, "move": 19}}
		}, "colour 9"},
		{"long text move", false, func(v map[string]any) {
			pollLeg(v)["history"] = []any{map[string]any{"color": 1, "move": strings.Repeat("d", 100)}}
		}, "100 bytes"},
		{"three legs", false, func(v map[string]any) {
			st := pollState(v)
			st["legs"] = append(st["legs"].([]any), st["legs"].([]any)[0], st["legs"].([]any)[0])
		}, "legs"},
		{"winner 5", false, func(v map[string]any) { pollState(v)["winner"] = 5 }, "winner 5"},
		{"blocked square outside", false, func(v map[string]any) { pollState(v)["blocked_squares"] = []any{-3} }, "square -3"},
		{"long status", false, func(v map[string]any) { pollMatch(v)["status"] = name2MiB }, "status is 2097152 bytes"},
		{"negative bot_a", false, func(v map[string]any) { pollMatch(v)["bot_a"] = -4 }, "bot_a -4"},
		{"id beyond 2^53", false, func(v map[string]any) { pollMatch(v)["id"] = int64(1) << 60 }, "outside"},
		{"bot name 2 MiB", true, func(v map[string]any) { pollBot(v)["name"] = name2MiB }, "name is 2097152 bytes"},
		{"bot name 65 characters", true, func(v map[string]any) { pollBot(v)["name"] = strings.Repeat("é", 65) }, "65 characters"},
		{"bot id 0", true, func(v map[string]any) { pollBot(v)["id"] = 0 }, "id 0"},
		{"bot bio", true, func(v map[string]any) { pollBot(v)["bio"] = name2MiB }, "bio"},
		{"bot rating", true, func(v map[string]any) { pollBot(v)["rating"].(map[string]any)["rating"] = 1e30 }, "rating"},
		{"bot games", true, func(v map[string]any) { pollBot(v)["supported_games"] = ints(100, 1) }, "supported games"},
		{"bot rd negative", true, func(v map[string]any) { pollBot(v)["rating"].(map[string]any)["rd"] = -5 }, "rd -5 outside 0..1e+06"},
		{"bot rd huge", true, func(v map[string]any) { pollBot(v)["rating"].(map[string]any)["rd"] = 1e7 }, "rd 1e+07"},
		{"bot losses", true, func(v map[string]any) { pollBot(v)["rating"].(map[string]any)["losses"] = -1 }, "losses -1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := samplePoll(t)
			good := len(v["bots"].([]any))
			tc.break_(v)
			body, err := json.Marshal(v)
			require.NoError(t, err)
			var p PollResponse
			err = DecodeAnswer(ActionPoll, 200, nil, body, &p)
			if err != nil {
				// A value the decoder itself refuses (a type error) is
				// refused too, with the whole answer.
				require.NotContains(t, err.Error(), "xxxxxxxxxx", "the error must not echo the text")
				return
			}
			if tc.bot {
				assert.Len(t, p.Bots, good-1, "the bad bot is dropped")
				assert.Len(t, p.Matches, 1, "the match stays")
			} else {
				assert.Empty(t, p.Matches, "the bad match is dropped")
				assert.Len(t, p.Bots, good, "the bots stay")
			}
			require.Len(t, p.Refused, 1)
			msg := p.Refused[0].Error()
			assert.ErrorIs(t, p.Refused[0], ErrBadObject)
			assert.Contains(t, msg, tc.want)
			assert.Less(t, len(msg), 300, "one short line: %s", msg)
		})
	}
}

func TestPollTopLevelValuesFailTheAnswer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(v map[string]any)
	}{
		{"server_now_ms negative", func(v map[string]any) { v["server_now_ms"] = -5 }},
		{"me too long", func(v map[string]any) { v["me"] = strings.Repeat("m", 1000) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := samplePoll(t)
			tc.break_(v)
			body, _ := json.Marshal(v)
			var p PollResponse
			err := DecodeAnswer(ActionPoll, 200, nil, body, &p)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrBadObject)
		})
	}
}

func TestOwnBotRefused(t *testing.T) {
	v := samplePoll(t)
	v["bot"].(map[string]any)["name"] = strings.Repeat("n", 2<<20)
	body, _ := json.Marshal(v)
	var p PollResponse
	require.NoError(t, DecodeAnswer(ActionPoll, 200, nil, body, &p))
	assert.Nil(t, p.Bot)
	require.Len(t, p.Refused, 1)
	assert.Contains(t, p.Refused[0].Error(), "(this bot)")
}

func TestMoveAnswerWithBadMatchIsAnError(t *testing.T) {
	body := `{"ok":true,"match":{"id":1,"status":"running","bot_a":1,"bot_b":2,"game_mode":"std","state":{"game_mode":"std","status":"active","board_size":3000,"legs":[]}},"server_now_ms":1}`
	var m MatchResponse
	err := DecodeAnswer(ActionMove, 200, nil, []byte(body), &m)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrBadObject))
	assert.Contains(t, err.Error(), "bad object from the server: match 1: board_size 3000")
}

func TestEventWithBadMatchIsBadEvent(t *testing.T) {
	v := samplePoll(t)
	pollState(v)["board_size"] = 100000
	ev, _ := json.Marshal(map[string]any{"type": "match", "match": pollMatch(v), "server_now_ms": 1})
	_, err := DecodeEvent(ev)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrBadEvent)
	assert.ErrorIs(t, err, ErrBadObject)
	_, err = DecodeEvent([]byte(`{"type":"hello","bot_id":-2,"server_now_ms":1}`))
	assert.ErrorIs(t, err, ErrBadEvent)
}

func TestModeBoardSize(t *testing.T) {
	for mode, want := range map[string]int{"std": 8, "anti": 8, "reversi": 8, "grand": 10, "octagon": 10} {
		got, ok := ModeBoardSize(mode)
		assert.True(t, ok, mode)
		assert.Equal(t, want, got, mode)
	}
	_, ok := ModeBoardSize("chess")
	assert.False(t, ok)
}

// A pending match's placeholder state carries only what is known before the
// game: it is kept, not dropped (it must be accepted); a leg in play must
// still be whole.
func TestPlaceholderStatesAreKept(t *testing.T) {
	cases := []struct {
		name string
		edit func(v map[string]any)
		keep bool
	}{
		{"pending without board_size", func(v map[string]any) {
			m := pollMatch(v)
			m["status"] = "pending"
			m["state"] = map[string]any{"status": "pending", "game_mode": m["game_mode"]}
		}, true},
		{"pending grand without board_size", func(v map[string]any) {
			m := pollMatch(v)
			m["status"], m["game_mode"] = "pending", "grand"
			m["state"] = map[string]any{"status": "pending", "game_mode": "grand", "blocked_squares": []any{}}
		}, true},
		{"placeholder legs without boards", func(v map[string]any) {
			m := pollMatch(v)
			m["status"] = "pending"
			m["state"] = map[string]any{"status": "pending", "legs": []any{map[string]any{"status": ""}, map[string]any{}}}
		}, true},
		{"no board_size, an active leg of the mode's board", func(v map[string]any) {
			delete(pollState(v), "board_size")
		}, true},
		{"an active leg without a board", func(v map[string]any) {
			delete(pollLeg(v), "board")
		}, false},
		{"no board_size, a board of the wrong size", func(v map[string]any) {
			delete(pollState(v), "board_size")
			pollLeg(v)["board"] = ints(100, 0)
		}, false},
		{"board_size 9", func(v map[string]any) { pollState(v)["board_size"] = 9 }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := samplePoll(t)
			tc.edit(v)
			b, err := json.Marshal(v)
			require.NoError(t, err)
			var p PollResponse
			require.NoError(t, DecodeAnswer(ActionPoll, 200, nil, b, &p))
			if tc.keep {
				assert.Empty(t, p.Refused)
				assert.Len(t, p.Matches, 1)
			} else {
				assert.Len(t, p.Refused, 1, "one reason, for one log line")
				assert.Empty(t, p.Matches)
			}
		})
	}
}

func TestPollWithTooManyMatchesIsRefusedWhole(t *testing.T) {
	for _, n := range []int{MaxPollMatches, MaxPollMatches + 1} {
		v := samplePoll(t)
		m := pollMatch(v)
		list := make([]any, n)
		for i := range list {
			list[i] = m
		}
		v["matches"] = list
		b, err := json.Marshal(v)
		require.NoError(t, err)
		var p PollResponse
		err = DecodeAnswer(ActionPoll, 200, nil, b, &p)
		if n <= MaxPollMatches {
			require.NoError(t, err)
			assert.Len(t, p.Matches, n)
		} else {
			require.ErrorIs(t, err, ErrBadObject)
			assert.Contains(t, err.Error(), "matches")
		}
	}
}
