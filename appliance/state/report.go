package state

import (
	"time"

	"flipbot.dev/flipbot/bot"
)

// Report is the bot's part of the status as the runner that starts,
// stops and restarts the bot last wrote it: the bot's own report (the
// appliance copies bot.Status into these types) and how its last play
// ended (a rejected token, a failure and its retry). The runner is its one
// writer, as one value; everything else only reads it. Its fields are the
// Status's own in Go and in /api/status.
type Report struct {
	// Detail is the last error or hint, for people.
	Detail string `json:"detail,omitempty"`
	// Bot is the bot as FlipSight last named it, kept while reconnecting.
	Bot BotInfo `json:"bot"`
	// BotState is the bot's own state (bot.Status.State): connecting,
	// online, polling, token_rejected, stopping or stopped.
	BotState string `json:"bot_state"`
	// Online: the bot's stream is up.
	Online bool `json:"online"`
	// NetworkDown: the last failure was not reaching FlipSight at all.
	NetworkDown bool `json:"network_down"`
	// Rejected: FlipSight refused the token; it is not tried again.
	Rejected bool `json:"token_rejected"`
	// EngineFailed: the configured engine (Egaroucid) failed its check
	// before going online; the bot stays offline and it is checked again
	// (Detail says why).
	EngineFailed bool `json:"engine_failed"`
	// EngineFailing: the bot's engine failed on several own moves in a
	// row in play; the bot accepts no new match until it answers a
	// probe (bot.Status.EngineFailing says why).
	EngineFailing string   `json:"engine_failing,omitempty"`
	Matches       []Match  `json:"matches"`
	Results       []Result `json:"recent_results"`
	// BotUpdated is when the bot made its last report.
	BotUpdated time.Time `json:"bot_updated"`
}

// BotInfo names the bot as FlipSight knows it.
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

// Match is one match being played (pending accepted ones included), as
// the bot reports it.
type Match struct {
	ID    int64  `json:"id"`
	Human bool   `json:"human"`
	Mode  string `json:"game_mode"`
	// Status is FlipSight's match status: pending, running, …
	Status string `json:"status"`
	// Ranked reports a rated match.
	Ranked bool `json:"ranked"`
	// Opponent is the opponent bot's name, or "human".
	Opponent string `json:"opponent"`
	// Participant is the bot's side: 0 (bot_a) or 1 (bot_b).
	Participant int `json:"participant"`
	// Totals are the disc totals [mine, theirs] so far.
	Totals [2]int `json:"totals"`
	Legs   []Leg  `json:"legs"`
	// Moves counts how the bot's moves so far were chosen.
	Moves MoveCounts `json:"moves"`
}

// Leg is one board of a match with its clocks, from the bot's side.
type Leg struct {
	Leg int `json:"leg"`
	// Status is active, finished, timeout or stopped.
	Status    string `json:"status"`
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
	// Move is the square, or -1 for a pass.
	Move int `json:"move"`
	// Revision is the leg revision it was played at; Ply its index in the
	// leg's history.
	Revision int64 `json:"revision"`
	Ply      int   `json:"ply"`
	// Source is "engine", "forced" (no choice) or "fallback".
	Source string `json:"source"`
	// Cause is a fallback's cause (bot.Cause*: timeout, failed, …); empty
	// for other sources.
	Cause string  `json:"cause,omitempty"`
	Depth int     `json:"depth"`
	Exact bool    `json:"exact"`
	Score float64 `json:"score"`
	// ElapsedMS is the time from the state's arrival to the move's answer.
	ElapsedMS int64 `json:"elapsed_ms"`
}

// MoveCounts counts how the bot's sent moves in a match were chosen: the
// fields of bot.MoveCounts with the JSON names of /api/status. The two
// types convert into each other (the compiler keeps their fields alike),
// and the arithmetic and the text are the bot's.
type MoveCounts struct {
	// Engine counts the engine's moves, Forced the moves without a choice.
	Engine int `json:"engine"`
	Forced int `json:"forced"`
	// Fallbacks counts the built-in fallback moves by cause.
	Fallbacks map[string]int `json:"fallbacks,omitempty"`
}

// FallbackTotal is the number of fallback moves of every cause, counted
// by the bot's own type (bot.MoveCounts.FallbackTotal).
func (c MoveCounts) FallbackTotal() int { return bot.MoveCounts(c).FallbackTotal() }

// String is the counts as a person reads them, as the bot's log writes
// them: "30 engine, 2 forced, 3 fallback (timeout 2, failed 1)"
// (bot.MoveCounts.String).
func (c MoveCounts) String() string { return bot.MoveCounts(c).String() }

// Result is a finished match.
type Result struct {
	MatchID  int64  `json:"match_id"`
	Human    bool   `json:"human"`
	Ranked   bool   `json:"ranked"`
	Mode     string `json:"game_mode"`
	Opponent string `json:"opponent"`
	// Outcome is win, loss, draw, aborted or unknown.
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
