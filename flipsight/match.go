package flipsight

// Match statuses (Match.Status): pending → running → finished | aborted,
// pending → rejected | expired.
const (
	MatchPending  = "pending"
	MatchRunning  = "running"
	MatchFinished = "finished"
	MatchAborted  = "aborted"
	MatchRejected = "rejected"
	MatchExpired  = "expired"
)

// KindHuman is Match.Kind of a match against a human (one leg, negative id).
const KindHuman = "human"

// State statuses (MatchState.Status).
const (
	StateActive   = "active"
	StateFinished = "finished"
	StateAborted  = "aborted"
)

// Leg statuses (Leg.Status).
const (
	LegActive   = "active"
	LegFinished = "finished"
	LegTimeout  = "timeout"
	LegStopped  = "stopped"
)

// Finish reasons (MatchState.FinishReason).
const (
	FinishDiscs         = "discs"
	FinishTimeout       = "timeout"
	FinishDoubleTimeout = "double_timeout"
	FinishDisconnect    = "disconnect"
	FinishNoFirstMove   = "no_first_move"
	FinishTechnical     = "technical"
)

// Colours as used by Leg.Turn, HistoryEntry.Color and board cells.
const (
	Empty = 0
	Black = 1
	White = 2
)

// Match is a match object (agent_poll matches[], the stream's match event,
// and in short form the answers of accept/reject/move).
//
// Participant 0 is BotA, participant 1 BotB (0 for a human). A human match
// has a negative ID (−room id), Kind "human", one leg, and RoundNo and
// RoomCreatedAt, which agent_move must echo. A stream event for a human
// match carries only ID, Kind and RoomID.
type Match struct {
	ID            int64       `json:"id"`
	Kind          string      `json:"kind,omitempty"`
	RoomID        int64       `json:"room_id,omitempty"`
	BotA          int64       `json:"bot_a"`
	BotB          int64       `json:"bot_b"`
	GameMode      string      `json:"game_mode,omitempty"`
	TimeLimitSec  int         `json:"time_limit_sec,omitempty"`
	Status        string      `json:"status,omitempty"`
	State         *MatchState `json:"state,omitempty"`
	Auto          bool        `json:"auto,omitempty"`
	ExpiresMS     int64       `json:"expires_ms,omitempty"`
	Ranked        bool        `json:"ranked,omitempty"`
	RatingApplied bool        `json:"rating_applied,omitempty"`
	RatingBefore  []*float64  `json:"rating_before,omitempty"`
	RatingAfter   []*float64  `json:"rating_after,omitempty"`
	CreatedAt     string      `json:"created_at,omitempty"`
	RoundNo       *int64      `json:"round_no,omitempty"`
	RoomCreatedAt *string     `json:"room_created_at,omitempty"`
}

// IsHuman reports whether m is a match against a human.
func (m *Match) IsHuman() bool { return m.Kind == KindHuman || m.ID < 0 }

// Participant returns 0 if botID is BotA, 1 if BotB, and -1 otherwise. In a
// human match the bot's side is whichever of BotA/BotB is non-zero and equal
// to botID.
func (m *Match) Participant(botID int64) int {
	switch {
	case botID != 0 && m.BotA == botID:
		return 0
	case botID != 0 && m.BotB == botID:
		return 1
	}
	return -1
}

// MatchState is Match.State: the game in progress. Totals are per
// participant (sums over legs, result_discs replacing discs when present);
// Winner is the participant 0 or 1, nil for a draw or while running.
type MatchState struct {
	Version        int            `json:"version,omitempty"`
	GameMode       string         `json:"game_mode"`
	TimeLimitSec   int            `json:"time_limit_sec,omitempty"`
	Status         string         `json:"status"`
	Revision       int64          `json:"revision"`
	StartedMS      int64          `json:"started_ms,omitempty"`
	LastNowMS      int64          `json:"last_now_ms,omitempty"`
	FinishedMS     *int64         `json:"finished_ms"`
	OpeningMoves   []Move         `json:"opening_moves,omitempty"`
	OpeningHistory []HistoryEntry `json:"opening_history,omitempty"`
	Legs           []Leg          `json:"legs"`
	Totals         []int          `json:"totals"`
	Winner         *int           `json:"winner"`
	FinishReason   *string        `json:"finish_reason"`
	BoardSize      int            `json:"board_size"`
	BlockedSquares []int          `json:"blocked_squares"`
	RoundNo        *int64         `json:"round_no,omitempty"`
	RoomCreatedAt  *string        `json:"room_created_at,omitempty"`
}

// Leg is one game of a match (MatchState.Legs). Board has board_size² cells
// (0 empty, 1 black, 2 white; a1 first, row by row); Turn is the colour to
// move; LegalMoves are that colour's squares (empty when it must pass or the
// leg is over). ClocksMS and Discs are in colour order [black, white];
// ClocksMS is the reference value at TurnStartedMS (server time). Revision
// grows by one on every change. ResultDiscs, when present, replaces Discs
// in the totals (after a timeout).
type Leg struct {
	Board            []int          `json:"board"`
	Turn             int            `json:"turn"`
	BlackParticipant int            `json:"black_participant"`
	Placed           Placed         `json:"placed"`
	ClocksMS         []float64      `json:"clocks_ms"`
	TurnStartedMS    int64          `json:"turn_started_ms"`
	Revision         int64          `json:"revision"`
	History          []HistoryEntry `json:"history"`
	Status           string         `json:"status"`
	Discs            []int          `json:"discs"`
	ResultDiscs      []int          `json:"result_discs,omitempty"`
	FinishedMS       *int64         `json:"finished_ms"`
	LegalMoves       []int          `json:"legal_moves"`
}

// Placed counts the discs each colour has placed, start included; the JSON
// keys are the strings "1" (black) and "2" (white). Classic reversi stops a
// colour at 32.
type Placed struct {
	Black int `json:"1"`
	White int `json:"2"`
}

// HistoryEntry is one move of Leg.History (or of MatchState.OpeningHistory,
// which has no participant or time).
type HistoryEntry struct {
	Color       int   `json:"color"`
	Participant *int  `json:"participant,omitempty"`
	Move        Move  `json:"move"`
	AtMS        int64 `json:"at_ms,omitempty"`
}
