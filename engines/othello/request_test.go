package othello

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpecRequests checks every example engine request of the spec (one per
// mode, and the std example of the engine section) against its legal_moves.
func TestSpecRequests(t *testing.T) {
	f, err := os.Open("testdata/spec_requests.jsonl")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		req, err := ParseEngineRequest(sc.Bytes())
		require.NoError(t, err, "line %d", n)
		pos, err := req.Position()
		require.NoError(t, err, "line %d", n)
		assert.Equal(t, req.LegalMoves, pos.LegalMoves(), "line %d (%s)", n, req.GameMode)
		assert.Equal(t, req.Board, pos.Board(), "line %d board round trip", n)

		back := NewEngineRequest(pos)
		assert.Equal(t, req.Board, back.Board)
		assert.Equal(t, req.Color, back.Color)
		assert.Equal(t, req.LegalMoves, back.LegalMoves)
		assert.Equal(t, req.GameMode, back.GameMode)
		assert.Equal(t, req.BoardSize, back.BoardSize)
		assert.Equal(t, req.BlockedSquares, back.BlockedSquares)
		assert.Equal(t, req.Placed, back.Placed)
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, 6, n)
}

// TestAgentPollLegs checks both legs of the spec's agent_poll example: leg 0
// has white to move.
func TestAgentPollLegs(t *testing.T) {
	raw, err := os.ReadFile("testdata/agent_poll_legs.json")
	require.NoError(t, err)
	var state struct {
		GameMode       string `json:"game_mode"`
		BoardSize      int    `json:"board_size"`
		BlockedSquares []int  `json:"blocked_squares"`
		Legs           []Leg  `json:"legs"`
	}
	require.NoError(t, json.Unmarshal(raw, &state))
	require.Len(t, state.Legs, 2)
	for i, leg := range state.Legs {
		pos, err := leg.Position(state.GameMode, state.BoardSize, state.BlockedSquares)
		require.NoError(t, err, "leg %d", i)
		assert.Equal(t, leg.LegalMoves, pos.LegalMoves(), "leg %d", i)
	}
	pos, _ := state.Legs[0].Position(state.GameMode, state.BoardSize, state.BlockedSquares)
	assert.Equal(t, White, pos.Turn)
}

func TestNewEngineRequestJSON(t *testing.T) {
	b, err := json.Marshal(NewEngineRequest(New(Std)))
	require.NoError(t, err)
	s := string(b)
	assert.Contains(t, s, `"blocked_squares":[]`)
	assert.Contains(t, s, `"placed":{"1":0,"2":0}`)
	assert.Contains(t, s, `"history":[]`)
	assert.Contains(t, s, `"round_no":null`)
	assert.Contains(t, s, `"legal_moves":[19,26,37,44]`)

	capped := New(Reversi)
	capped.Placed = Placed{Black: ReversiCap}
	b, err = json.Marshal(NewEngineRequest(capped))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"legal_moves":[]`, "never null")
}

func TestRequestErrors(t *testing.T) {
	good := NewEngineRequest(New(Octagon))
	cases := map[string]func(r *EngineRequest){
		"unknown mode":      func(r *EngineRequest) { r.GameMode = "chess" },
		"size mismatch":     func(r *EngineRequest) { r.BoardSize = 8 },
		"short board":       func(r *EngineRequest) { r.Board = r.Board[:64] },
		"cell 3":            func(r *EngineRequest) { r.Board[50] = 3 },
		"negative cell":     func(r *EngineRequest) { r.Board[50] = -1 },
		"colour 0":          func(r *EngineRequest) { r.Color = 0 },
		"colour 3":          func(r *EngineRequest) { r.Color = 3 },
		"blocked missing":   func(r *EngineRequest) { r.BlockedSquares = []int{0, 1} },
		"blocked wrong":     func(r *EngineRequest) { r.BlockedSquares[0] = 2 },
		"disc on blocked":   func(r *EngineRequest) { r.Board[0] = 1 },
		"negative placed":   func(r *EngineRequest) { r.Placed.Black = -1 },
		"placed over board": func(r *EngineRequest) { r.Placed.White = 101 },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			r := good
			r.Board = append([]int(nil), good.Board...)
			r.BlockedSquares = append([]int(nil), good.BlockedSquares...)
			mutate(&r)
			_, err := r.Position()
			assert.Error(t, err)
		})
	}
	std := NewEngineRequest(New(Std))
	std.BlockedSquares = []int{0}
	_, err := std.Position()
	assert.Error(t, err, "blocked squares outside octagon")
	rev := NewEngineRequest(New(Reversi))
	rev.Placed.Black = 33
	_, err = rev.Position()
	assert.Error(t, err, "reversi placed over 32")

	for _, line := range []string{"", "[]", "null", "{", `{"board":"x"}`, "garbage"} {
		_, err := ParseEngineRequest([]byte(line))
		assert.Error(t, err, "%q", line)
	}
}

// FuzzEngineRequest feeds arbitrary lines to the request parser and the
// conversion: errors are fine, panics are not, and an accepted request must
// round-trip.
func FuzzEngineRequest(f *testing.F) {
	if data, err := os.ReadFile("testdata/spec_requests.jsonl"); err == nil {
		for _, line := range splitLines(data) {
			f.Add(line)
		}
	}
	f.Add([]byte(`{"board":[1],"color":1,"game_mode":"std","board_size":8}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := ParseEngineRequest(line)
		if err != nil {
			return
		}
		pos, err := req.Position()
		if err != nil {
			return
		}
		back := NewEngineRequest(pos)
		again, err := back.Position()
		require.NoError(t, err)
		require.Equal(t, pos, again)
		_ = pos.LegalMoves()
		_ = pos.GameOver()
	})
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytesReader(b))
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}
