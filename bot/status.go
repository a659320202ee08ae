package bot

import "time"

// Connection states of Status.State.
const (
	// StateConnecting: starting, or the stream is down and being retried
	// (polling goes on meanwhile).
	StateConnecting = "connecting"
	// StateOnline: the stream is connected (the site shows the bot online).
	StateOnline = "online"
	// StatePolling: --no-stream; the bot plays by polling only.
	StatePolling = "polling"
	// StateTokenRejected: FlipSight answered 401; Run returns.
	StateTokenRejected = "token_rejected"
	// StateStopping: draining after a stop request.
	StateStopping = "stopping"
	// StateStopped: Run has returned.
	StateStopped = "stopped"
)

// Status is a snapshot of what the bot is doing, for displays and pages. It
// is a deep copy: the receiver may keep and read it freely. It is the one
// model of the bot's state: the appliance's pages and /api/status show
// these types as they are (the JSON tags are /api/status's names).
type Status struct {
	// State is one of the State* constants.
	State string `json:"state"`
	// Bot is the bot as FlipSight last described it; zero before the first
	// poll.
	Bot BotInfo `json:"bot"`
	// Matches are the matches being played (pending accepted ones included).
	Matches []MatchStatus `json:"matches"`
	// Results are the most recent finished matches, newest first.
	Results []Result `json:"results"`
	// LastError describes the last failure (never the token); empty when
	// the last call succeeded.
	LastError string `json:"last_error,omitempty"`
	// NetworkDown reports that the last failure was not reaching FlipSight
	// at all (DNS, connection, TLS, timeout), as opposed to an answer of
	// the server; false once a call succeeds.
	NetworkDown bool `json:"network_down"`
	// EngineFailing, when not empty, says why the bot accepts no new
	// matches: its engine failed on failingAfter own moves in a row, and
	// has not answered a probe since.
	EngineFailing string `json:"engine_failing,omitempty"`
	// Updated is when the snapshot was made.
	Updated time.Time `json:"updated"`
}

// Online reports whether the bot shows as online on FlipSight (its
// stream is connected).
func (s Status) Online() bool { return s.State == StateOnline }

// BotInfo identifies the bot.
type BotInfo struct {
	ID     int64   `json:"id,omitempty"`
	Name   string  `json:"name,omitempty"`
	Rating float64 `json:"rating,omitempty"`
	RD     float64 `json:"rd,omitempty"`
	Wins   int     `json:"wins"`
	Losses int     `json:"losses"`
	Draws  int     `json:"draws"`
	// Official reports whether the rating is official (not provisional).
	Official bool `json:"official"`
}

// MatchStatus is one match being played.
type MatchStatus struct {
	ID     int64  `json:"id"`
	Human  bool   `json:"human"`
	Mode   string `json:"game_mode"`
	Status string `json:"status"` // pending, running, …
	// Ranked reports a rated match.
	Ranked   bool   `json:"ranked"`
	Opponent string `json:"opponent"` // the opponent bot's name, or "human"
	// Participant is the bot's side: 0 (bot_a) or 1 (bot_b).
	Participant int `json:"participant"`
	// Totals are the disc totals [mine, theirs] so far.
	Totals [2]int      `json:"totals"`
	Legs   []LegStatus `json:"legs"`
	// Moves counts how the bot's moves so far were chosen.
	Moves MoveCounts `json:"moves"`
}

// LegStatus is one leg of a match, with its clocks, from the bot's side.
type LegStatus struct {
	Leg       int    `json:"leg"`
	Status    string `json:"status"` // active, finished, timeout, stopped
	BoardSize int    `json:"board_size"`
	// Board as the API sends it (0 empty, 1 black, 2 white; a1 first).
	Board []int `json:"board"`
	// Blocked are the squares no disc may use (octagon's corners).
	Blocked []int `json:"blocked"`
	// MyColor is 1 (black) or 2 (white); Turn the colour to move; MyTurn
	// reports an active leg with the bot to move.
	MyColor int  `json:"my_color"`
	Turn    int  `json:"turn"`
	MyTurn  bool `json:"my_turn"`
	// Discs are [black, white].
	Discs [2]int `json:"discs"`
	// ClocksMS are [black, white] remaining at ClocksAt (the mover's clock
	// running down from there).
	ClocksMS [2]int64  `json:"clocks_ms"`
	ClocksAt time.Time `json:"clocks_at"`
	Revision int64     `json:"revision"`
	// LastMove is the last square played (-1 pass), or -2 when none.
	LastMove int `json:"last_move"`
	// Moves is the number of moves played in the leg.
	Moves int `json:"moves"`
	// Thinking reports a search in progress for this leg.
	Thinking bool `json:"thinking"`
	// LastSearch is the bot's last move sent in this leg; zero before.
	LastSearch Search `json:"last_search"`
}

// Search describes a move the bot sent.
type Search struct {
	Move     int    `json:"move"`     // square, or -1 for a pass
	Revision int64  `json:"revision"` // the leg revision it was played at
	Ply      int    `json:"ply"`      // its index in the leg's history
	Source   string `json:"source"`   // "engine", "forced" (no choice) or "fallback"
	// Cause is a fallback's cause (Cause*); empty for other sources.
	Cause string  `json:"cause,omitempty"`
	Depth int     `json:"depth"`
	Exact bool    `json:"exact"`
	Score float64 `json:"score"`
	// ElapsedMS is the time from the state's arrival to the move's answer.
	ElapsedMS int64 `json:"elapsed_ms"`
}

// Outcomes of Result.Outcome.
const (
	OutcomeWin     = "win"
	OutcomeLoss    = "loss"
	OutcomeDraw    = "draw"
	OutcomeAborted = "aborted"
	OutcomeUnknown = "unknown"
)

// Result is a finished match.
type Result struct {
	MatchID  int64  `json:"match_id"`
	Human    bool   `json:"human"`
	Ranked   bool   `json:"ranked"`
	Mode     string `json:"game_mode"`
	Opponent string `json:"opponent"`
	// Outcome is one of the Outcome* constants.
	Outcome string `json:"outcome"`
	// Mine and Theirs are the disc totals.
	Mine   int `json:"my_discs"`
	Theirs int `json:"opponent_discs"`
	// Reason is the state's finish_reason ("discs", "timeout", …).
	Reason string    `json:"finish_reason,omitempty"`
	At     time.Time `json:"at"`
	// Games are the ids of the legs' records (bot/record), when kept.
	Games []string `json:"games,omitempty"`
	// Moves counts how the bot's moves were chosen.
	Moves MoveCounts `json:"moves"`
}

// clone returns a deep copy.
func (s Status) clone() Status {
	c := s
	c.Matches = make([]MatchStatus, len(s.Matches))
	for i, m := range s.Matches {
		mc := m
		mc.Legs = make([]LegStatus, len(m.Legs))
		for j, l := range m.Legs {
			lc := l
			lc.Board = append([]int(nil), l.Board...)
			lc.Blocked = append([]int(nil), l.Blocked...)
			mc.Legs[j] = lc
		}
		mc.Moves = m.Moves.clone()
		c.Matches[i] = mc
	}
	c.Results = append([]Result(nil), s.Results...)
	for i := range c.Results {
		c.Results[i].Games = append([]string(nil), c.Results[i].Games...)
		c.Results[i].Moves = c.Results[i].Moves.clone()
	}
	return c
}
