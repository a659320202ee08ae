package arena

// An independent client written from the spec (not from the flipsight
// package): plain maps and its own small types, so a misreading shared by
// the server and flipsight's wire types would show up here.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

type specClient struct {
	t     testing.TB
	base  string
	token string
	hc    *http.Client
}

type specLeg struct {
	Board            []int            `json:"board"`
	Turn             int              `json:"turn"`
	LegalMoves       []int            `json:"legal_moves"`
	Placed           map[string]int   `json:"placed"`
	BlackParticipant int              `json:"black_participant"`
	ClocksMS         []float64        `json:"clocks_ms"`
	TurnStartedMS    int64            `json:"turn_started_ms"`
	Revision         int64            `json:"revision"`
	Status           string           `json:"status"`
	History          []map[string]any `json:"history"`
	Discs            []int            `json:"discs"`
	ResultDiscs      []int            `json:"result_discs"`
}

type specMatch struct {
	ID            int64   `json:"id"`
	Kind          string  `json:"kind"`
	BotA          int64   `json:"bot_a"`
	BotB          int64   `json:"bot_b"`
	GameMode      string  `json:"game_mode"`
	Status        string  `json:"status"`
	RoundNo       *int64  `json:"round_no"`
	RoomCreatedAt *string `json:"room_created_at"`
	State         *struct {
		Status         string    `json:"status"`
		GameMode       string    `json:"game_mode"`
		BoardSize      int       `json:"board_size"`
		BlockedSquares []int     `json:"blocked_squares"`
		Legs           []specLeg `json:"legs"`
		Totals         []int     `json:"totals"`
		Winner         *int      `json:"winner"`
		FinishReason   *string   `json:"finish_reason"`
	} `json:"state"`
}

type specPoll struct {
	OK   bool `json:"ok"`
	Bots []struct {
		ID             int64    `json:"id"`
		Name           string   `json:"name"`
		SupportedGames []string `json:"supported_games"`
		IsBuiltin      bool     `json:"is_builtin"`
		Online         bool     `json:"online"`
	} `json:"bots"`
	Matches []specMatch `json:"matches"`
	Bot     struct {
		ID int64 `json:"id"`
	} `json:"bot"`
	ServerNowMS int64 `json:"server_now_ms"`
}

// call posts body and returns the status and the decoded answer.
func (c *specClient) call(body any) (int, map[string]any) {
	c.t.Helper()
	b, err := json.Marshal(body)
	require.NoError(c.t, err)
	status, raw := c.raw(b)
	var out map[string]any
	require.NoError(c.t, json.Unmarshal(raw, &out), "answer %s", raw)
	return status, out
}

func (c *specClient) raw(body []byte) (int, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.base+"/flipsight/bot_match_api.php", bytes.NewReader(body))
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return resp.StatusCode, raw
}

func (c *specClient) poll() specPoll {
	c.t.Helper()
	b, _ := json.Marshal(map[string]any{"action": "agent_poll", "environment": map[string]any{"cpu": "test", "engine": "spec-client", "os": "go"}})
	status, raw := c.raw(b)
	require.Equal(c.t, http.StatusOK, status, "poll: %s", raw)
	var p specPoll
	require.NoError(c.t, json.Unmarshal(raw, &p))
	require.True(c.t, p.OK)
	return p
}

// step plays every leg where it is this bot's move (the first legal move,
// or -1 with none; human matches echo round_no/room_created_at and never
// pass), accepts pending challenges addressed to it, and reports whether
// any of its matches is still pending or running.
func (c *specClient) step() (busy bool) {
	c.t.Helper()
	p := c.poll()
	me := p.Bot.ID
	for _, m := range p.Matches {
		switch m.Status {
		case "pending":
			busy = true
			if m.BotB == me || m.Kind == "human" {
				status, ans := c.call(map[string]any{"action": "agent_accept", "match_id": m.ID})
				require.Equal(c.t, http.StatusOK, status, "accept: %v", ans)
			}
		case "running":
			busy = true
			part := 0
			if m.BotB == me {
				part = 1
			}
			for li, l := range m.State.Legs {
				if l.Status != "active" {
					continue
				}
				color := 1
				if l.BlackParticipant != part {
					color = 2
				}
				if l.Turn != color {
					continue
				}
				require.Len(c.t, l.Board, m.State.BoardSize*m.State.BoardSize)
				var move any = -1
				if len(l.LegalMoves) > 0 {
					move = l.LegalMoves[0]
					if li == 1 { // exercise the coordinate form too
						move = coord(l.LegalMoves[0], m.State.BoardSize)
					}
				}
				body := map[string]any{"action": "agent_move", "match_id": m.ID, "leg": li, "revision": l.Revision, "move": move}
				if m.Kind == "human" {
					require.NotEqual(c.t, -1, move, "human matches never need a pass from the bot")
					body["round_no"] = *m.RoundNo
					body["room_created_at"] = *m.RoomCreatedAt
				}
				status, ans := c.call(body)
				require.Equal(c.t, http.StatusOK, status, "move %v: %v", body, ans)
			}
		}
	}
	return busy
}

func coord(sq, size int) string {
	r, c := sq/size+1, sq%size
	if size == 10 && r == 10 && sq%2 == 0 {
		return fmt.Sprintf("%c0", 'A'+c) // "J0" form for j10
	}
	return fmt.Sprintf("%c%d", 'a'+c, r)
}

func (c *specClient) match(id int64) specMatch {
	c.t.Helper()
	for _, m := range c.poll().Matches {
		if m.ID == id {
			return m
		}
	}
	c.t.Fatalf("match %d not in poll", id)
	return specMatch{}
}
