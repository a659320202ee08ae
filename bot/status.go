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
// is a deep copy: the receiver may keep and read it freely.
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
	// Updated is when the snapshot was made.
	Updated time.Time
}

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
	ID       int64
	Human    bool
	Mode     string
	Status   string // pending, running, …
	Ranked   bool
	Opponent string // the opponent bot's name, or "human"
	// Participant is the bot's side: 0 (bot_a) or 1 (bot_b).
	Participant int
	// Totals are the disc totals [mine, theirs] so far.
	Totals [2]int
	Legs   []LegStatus
}

// LegStatus is one leg of a match.
type LegStatus struct {
	Leg       int
	Status    string // active, finished, timeout, stopped
	BoardSize int
	// Board as the API sends it (0 empty, 1 black, 2 white; a1 first).
	Board []int
	// MyColor is 1 (black) or 2 (white); Turn the colour to move.
	MyColor, Turn int
	// Discs are [black, white].
	Discs [2]int
	// Clocks are [black, white] remaining at the time of the snapshot
	// (the mover's clock running down).
	Clocks   [2]time.Duration
	Revision int64
	// LastMove is the last square played (-1 pass), or -2 when none.
	LastMove int
	// Thinking reports a search in progress for this leg.
	Thinking bool
	// LastSearch is the bot's last move sent in this leg; zero before.
	LastSearch Search
}

// Search describes a move the bot sent.
type Search struct {
	Move     int    // square, or -1 for a pass
	Revision int64  // the leg revision it was played at
	Source   string // "engine", "forced" (no choice) or "fallback"
	Depth    int
	Exact    bool
	Score    float64
	// Elapsed is the time from the state's arrival to the move's answer.
	Elapsed time.Duration
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
	Mode     string
	Opponent string
	// Outcome is one of the Outcome* constants.
	Outcome string
	// Mine and Theirs are the disc totals.
	Mine, Theirs int
	// Reason is the state's finish_reason ("discs", "timeout", …).
	Reason string
	At     time.Time
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
			mc.Legs[j] = lc
		}
		c.Matches[i] = mc
	}
	c.Results = append([]Result(nil), s.Results...)
	return c
}
