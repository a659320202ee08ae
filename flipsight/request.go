package flipsight

// Action names, the "action" field of every POST body.
const (
	ActionPoll      = "agent_poll"
	ActionChallenge = "agent_challenge"
	ActionAccept    = "agent_accept"
	ActionReject    = "agent_reject"
	ActionMove      = "agent_move"
)

// Game modes, the "game_mode" values of matches and challenges.
const (
	ModeStd     = "std"
	ModeAnti    = "anti"
	ModeGrand   = "grand"
	ModeOctagon = "octagon"
	ModeReversi = "reversi"
)

// Envelope is the part common to every POST body. A server decodes it first
// to dispatch on Action, then decodes the body again into the action's type.
type Envelope struct {
	Action string `json:"action"`
}

// Environment describes the bot's computer and engine, sent with agent_poll
// and reported back in Bot.Environment. Each string is at most 120
// characters (MaxEnvironmentLen). Practice true takes the bot out of
// automatic matching and makes its bot-vs-bot games unrated; the server
// remembers the last value, so it is always sent.
type Environment struct {
	CPU      string `json:"cpu,omitempty"`
	OS       string `json:"os,omitempty"`
	Engine   string `json:"engine,omitempty"`
	Practice bool   `json:"practice"`
}

// MaxEnvironmentLen is the longest cpu, os or engine string the service takes.
const MaxEnvironmentLen = 120

// PollRequest is the body of agent_poll.
type PollRequest struct {
	Action      string       `json:"action"` // ActionPoll
	Environment *Environment `json:"environment,omitempty"`
}

// ChallengeRequest is the body of agent_challenge: the target by TargetID
// (≥ 1) or TargetName, and GameMode (the server defaults to std).
type ChallengeRequest struct {
	Action     string `json:"action"` // ActionChallenge
	TargetID   int64  `json:"target_id,omitempty"`
	TargetName string `json:"target_name,omitempty"`
	GameMode   string `json:"game_mode,omitempty"`
}

// AcceptRequest is the body of agent_accept (MatchID negative for a human
// match).
type AcceptRequest struct {
	Action  string `json:"action"` // ActionAccept
	MatchID int64  `json:"match_id"`
}

// RejectRequest is the body of agent_reject.
type RejectRequest struct {
	Action  string `json:"action"` // ActionReject
	MatchID int64  `json:"match_id"`
}

// MoveRequest is the body of agent_move. Leg is 0 or 1 (0 in human
// matches); Revision is the leg's revision the move was computed for. Human
// matches echo RoundNo and RoomCreatedAt from the match object unchanged;
// bot-vs-bot matches leave them nil and they are omitted.
type MoveRequest struct {
	Action        string  `json:"action"` // ActionMove
	MatchID       int64   `json:"match_id"`
	RoundNo       *int64  `json:"round_no,omitempty"`
	RoomCreatedAt *string `json:"room_created_at,omitempty"`
	Leg           int     `json:"leg"`
	Revision      int64   `json:"revision"`
	Move          Move    `json:"move"`
}
