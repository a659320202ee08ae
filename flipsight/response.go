package flipsight

// ErrorResponse is the body of every failed call:
// {"ok":false,"error":"…","server_now_ms":…}.
type ErrorResponse struct {
	OK          bool   `json:"ok"`
	Error       string `json:"error"`
	ServerNowMS int64  `json:"server_now_ms,omitempty"`
}

// PollResponse is the answer of agent_poll. Bots lists the bots one may
// challenge, RecordBots those in the bot's records; Matches the bot's
// matches (pending, running and recently ended); Me the owner's player id;
// Bot the bot itself. Bots and matches that fail their Check are left out
// by the client, and Refused says why (one error each).
type PollResponse struct {
	OK          bool    `json:"ok"`
	Bots        []Bot   `json:"bots"`
	RecordBots  []Bot   `json:"record_bots"`
	Matches     []Match `json:"matches"`
	Me          Text    `json:"me"`
	Bot         *Bot    `json:"bot"`
	ServerNowMS int64   `json:"server_now_ms"`
	// Refused holds one error (wrapping ErrBadObject) per object left out.
	Refused []error `json:"-"`
}

// ChallengeResponse is the answer of agent_challenge.
type ChallengeResponse struct {
	OK          bool  `json:"ok"`
	MatchID     int64 `json:"match_id"`
	ServerNowMS int64 `json:"server_now_ms"`
}

// MatchResponse is the answer of agent_accept, agent_reject and agent_move:
// a short match object (id, status, bot_a, bot_b; a server may send more).
type MatchResponse struct {
	OK          bool   `json:"ok"`
	Match       *Match `json:"match"`
	ServerNowMS int64  `json:"server_now_ms"`
}
