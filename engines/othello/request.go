package othello

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// EngineRequest is the JSON object that the connector writes to an engine
// for each move (the `--engine` protocol, the spec's 15 fields). Decoding
// tolerates unknown fields; [EngineRequest.Position] checks the rules' part.
type EngineRequest struct {
	Board          []int           `json:"board"`
	Color          int             `json:"color"`
	LegalMoves     []int           `json:"legal_moves"`
	GameMode       string          `json:"game_mode"`
	BoardSize      int             `json:"board_size"`
	BlockedSquares []int           `json:"blocked_squares"`
	Placed         Placed          `json:"placed"`
	RemainingMS    int64           `json:"remaining_ms"`
	MatchID        int64           `json:"match_id"`
	Leg            int             `json:"leg"`
	Revision       int64           `json:"revision"`
	History        json.RawMessage `json:"history"`
	RoundNo        *int            `json:"round_no"`
	RoomCreatedAt  *string         `json:"room_created_at"`
	BudgetMS       int64           `json:"budget_ms"`
}

// maxRequestBytes bounds one request line; the largest real one is ~2 KiB
// plus the history.
const maxRequestBytes = 1 << 20

// ParseEngineRequest decodes one request line.
func ParseEngineRequest(line []byte) (EngineRequest, error) {
	var r EngineRequest
	line = bytes.TrimSpace(line)
	if len(line) > maxRequestBytes {
		return r, fmt.Errorf("engine request of %d bytes is over the %d-byte limit", len(line), maxRequestBytes)
	}
	if len(line) == 0 || line[0] != '{' {
		return r, fmt.Errorf("engine request: want a JSON object")
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return r, fmt.Errorf("engine request: %w", err)
	}
	return r, nil
}

// Position checks the request's board, colour, mode, size, blocked squares
// and placed counts against the rules and returns the position with the
// request's colour to move. The request's own legal_moves are not used.
func (r EngineRequest) Position() (Position, error) {
	mode, err := ParseMode(r.GameMode)
	if err != nil {
		return Position{}, fmt.Errorf("engine request: %w", err)
	}
	if r.BoardSize != mode.Size() {
		return Position{}, fmt.Errorf("engine request: board_size %d, but %s is played on %d×%d", r.BoardSize, mode, mode.Size(), mode.Size())
	}
	pos, err := FromBoard(mode, r.Board, Color(r.Color), r.Placed, r.BlockedSquares)
	if err != nil {
		return Position{}, fmt.Errorf("engine request: %w", err)
	}
	return pos, nil
}

// NewEngineRequest returns the request for pos with the rules' legal moves,
// an empty history and every other field zero, for the caller to complete.
func NewEngineRequest(pos Position) EngineRequest {
	return EngineRequest{
		Board:          pos.Board(),
		Color:          int(pos.Turn),
		LegalMoves:     pos.LegalMoves(),
		GameMode:       pos.Mode.String(),
		BoardSize:      pos.Size(),
		BlockedSquares: pos.Mode.BlockedSquares(),
		Placed:         pos.Placed,
		History:        json.RawMessage("[]"),
	}
}

// Leg is the part of an agent_poll leg object that the rules need; decoding
// a whole leg object into it ignores the other fields.
type Leg struct {
	Board      []int  `json:"board"`
	Turn       int    `json:"turn"`
	Placed     Placed `json:"placed"`
	LegalMoves []int  `json:"legal_moves"`
}

// Position returns the leg's position, with the leg's turn to move, for a
// match state with the given game_mode, board_size and blocked_squares.
func (l Leg) Position(gameMode string, boardSize int, blocked []int) (Position, error) {
	mode, err := ParseMode(gameMode)
	if err != nil {
		return Position{}, fmt.Errorf("leg: %w", err)
	}
	if boardSize != mode.Size() {
		return Position{}, fmt.Errorf("leg: board_size %d, but %s is played on %d×%d", boardSize, mode, mode.Size(), mode.Size())
	}
	pos, err := FromBoard(mode, l.Board, Color(l.Turn), l.Placed, blocked)
	if err != nil {
		return Position{}, fmt.Errorf("leg: %w", err)
	}
	return pos, nil
}

// FromBoard builds a position from an API board (size² cells of 0, 1, 2, a1
// first), the colour to move, the placed counts and the blocked squares the
// API sent, checking each against the mode.
func FromBoard(mode Mode, board []int, turn Color, placed Placed, blocked []int) (Position, error) {
	if int(mode) >= len(modeNames) {
		return Position{}, fmt.Errorf("unknown game mode %d", mode)
	}
	n := mode.Squares()
	if len(board) != n {
		return Position{}, fmt.Errorf("board has %d cells, %s needs %d", len(board), mode, n)
	}
	if turn != Black && turn != White {
		return Position{}, fmt.Errorf("colour %d is not 1 (black) or 2 (white)", turn)
	}
	if err := checkBlocked(mode, blocked); err != nil {
		return Position{}, err
	}
	p := Position{Mode: mode, Turn: turn, Placed: placed}
	want := mode.Blocked()
	for sq, v := range board {
		switch v {
		case 0:
		case 1, 2:
			if want.Has(sq) {
				return Position{}, fmt.Errorf("blocked square %d holds a disc", sq)
			}
			if v == 1 {
				p.Black = p.Black.Or(Bit(sq))
			} else {
				p.White = p.White.Or(Bit(sq))
			}
		default:
			return Position{}, fmt.Errorf("board cell %d is %d, want 0, 1 or 2", sq, v)
		}
	}
	limit := n
	if mode == Reversi {
		limit = ReversiCap
	}
	if placed.Black < 0 || placed.White < 0 || placed.Black > limit || placed.White > limit {
		return Position{}, fmt.Errorf("placed {%d, %d} outside 0..%d", placed.Black, placed.White, limit)
	}
	return p, nil
}

// checkBlocked requires the API's blocked list to be exactly the mode's set
// (in any order).
func checkBlocked(mode Mode, blocked []int) error {
	want := mode.BlockedSquares()
	got := append([]int(nil), blocked...)
	sort.Ints(got)
	sort.Ints(want)
	if len(got) != len(want) {
		return fmt.Errorf("blocked_squares has %d squares, %s has %d", len(got), mode, len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("blocked_squares %v do not match %s's", blocked, mode)
		}
	}
	return nil
}
