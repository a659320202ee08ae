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

// Status is a snapshot of what the bot is doing, for displays and pages
// (Options.OnStatus). It is a deep copy: the receiver may keep and read it
// freely. It is plain Go, with no wire form of its own: a program that
// shows it defines its own (the appliance's /api/status is the
// appliance's types, appliance/state, copied from these).
type Status struct {
	// State is one of the State* constants.
	State string
	// Bot is the bot as FlipSight last described it; zero before the first
	// poll.
	Bot BotInfo
	// Matches are the matches being played (pending accepted ones included).
	Matches []MatchStatus
	// Results are the most recent finished matches, newest first.
	Results []Result
	// LastError describes the last failure (never the token); empty when
	// the last call succeeded.
	LastError string
	// NetworkDown reports that the last failure was not reaching FlipSight
	// at all (DNS, connection, TLS, timeout), as opposed to an answer of
	// the server; false once a call succeeds.
	NetworkDown bool
	// EngineFailing, when not empty, says why the bot accepts no new
	// matches: its engine failed on failingAfter own moves in a row, and
	// has not answered a probe since.
	EngineFailing string
	// Updated is when the snapshot was made.
	Updated time.Time
}

// Online reports whether the bot shows as online on FlipSight (its
// stream is connected).
func (s Status) Online() bool { return s.State == StateOnline }

// BotInfo identifies the bot.
type BotInfo struct {
	ID     int64
	Name   string
	Rating float64
	RD     float64
	Wins   int
	Losses int
	Draws  int
	// Official reports whether the rating is official (not provisional).
	Official bool
}

// MatchStatus is one match being played.
type MatchStatus struct {
	ID     int64
	Human  bool
	Mode   string
	Status string // pending, running, …
	// Ranked reports a rated match.
	Ranked   bool
	Opponent string // the opponent bot's name, or "human"
	// Participant is the bot's side: 0 (bot_a) or 1 (bot_b).
	Participant int
	// Totals are the disc totals [mine, theirs] so far.
	Totals [2]int
	Legs   []LegStatus
	// Moves counts how the bot's moves so far were chosen.
	Moves MoveCounts
}

// LegStatus is one leg of a match, with its clocks, from the bot's side.
type LegStatus struct {
	Leg       int
	Status    string // active, finished, timeout, stopped
	BoardSize int
	// Board as the API sends it (0 empty, 1 black, 2 white; a1 first).
	Board []int
	// Blocked are the squares no disc may use (octagon's corners).
	Blocked []int
	// MyColor is 1 (black) or 2 (white); Turn the colour to move; MyTurn
	// reports an active leg with the bot to move.
	MyColor int
	Turn    int
	MyTurn  bool
	// Discs are [black, white].
	Discs [2]int
	// ClocksMS are [black, white] remaining at ClocksAt (the mover's clock
	// running down from there).
	ClocksMS [2]int64
	ClocksAt time.Time
	Revision int64
	// LastMove is the last square played (-1 pass), or -2 when none.
	LastMove int
	// Moves is the number of moves played in the leg.
	Moves int
	// Thinking reports a search in progress for this leg.
	Thinking bool
	// LastSearch is the bot's last move sent in this leg; zero before.
	LastSearch Search
}

// Search describes a move the bot sent.
type Search struct {
	Move     int    // square, or -1 for a pass
	Revision int64  // the leg revision it was played at
	Ply      int    // its index in the leg's history
	Source   string // "engine", "forced" (no choice) or "fallback"
	// Cause is a fallback's cause (Cause*); empty for other sources.
	Cause string
	Depth int
	Exact bool
	Score float64
	// ElapsedMS is the time from the state's arrival to the move's answer.
	ElapsedMS int64
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
	MatchID  int64
	Human    bool
	Ranked   bool
	Mode     string
	Opponent string
	// Outcome is one of the Outcome* constants.
	Outcome string
	// Mine and Theirs are the disc totals.
	Mine   int
	Theirs int
	// Reason is the state's finish_reason ("discs", "timeout", …).
	Reason string
	At     time.Time
	// Games are the ids of the legs' records (bot/record), when kept.
	Games []string
	// Moves counts how the bot's moves were chosen.
	Moves MoveCounts
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
