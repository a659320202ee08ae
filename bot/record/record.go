// Package record keeps finished games: one [Game] per leg, in JSON lines
// on disk (see [Store]), with a GGF export for std.
//
// # Schema (version 1)
//
// Every line of a games file is one JSON object, a [Game]:
//
//	{"schema":1,"id":"123-0-1796400000000","source":"flipsight","match_id":123,"leg":0,
//	 "human":false,"ranked":true,"mode":"std","board_size":8,"blocked":[],
//	 "black":{"name":"mybot","me":true},"white":{"name":"house"},"my_color":1,
//	 "start":{"board":[0,…],"turn":1,"placed":[6,6],"opening":[19,20,…]},
//	 "clock_ms":60000,
//	 "moves":[{"color":1,"move":44,"square":"e6","time_ms":812,"clock_ms":59188,
//	           "score":2.5,"depth":14,"source":"engine"},…],
//	 "final_clocks_ms":[41020,38211],"discs":[35,29],"result_discs":[35,29],
//	 "leg_status":"finished","winner":1,"result":"win","match_result":"win",
//	 "reason":"discs","started":"2026-12-02T16:35:01Z","ended":"2026-12-02T16:41:12Z"}
//
// Fields:
//   - schema: 1; a reader skips lines with a schema it does not know.
//   - id: unique per game: match id, leg and end time in ms, joined by "-".
//   - source: "flipsight" (the bot's games) or "arena" (flipbot-arena's).
//   - match_id, leg, human, ranked: the FlipSight match, the leg (0 or 1; 0
//     in a human match), whether it is against a human and rated.
//     round (human matches) is the room's round_no.
//   - mode, board_size, blocked: the game mode (std, anti, grand, octagon,
//     reversi), 8 or 10, and the unusable squares (octagon).
//   - black, white: the players: name, FlipSight bot id when known, and
//     me: true on the bot's side. my_color is 1 (black), 2 (white), or 0
//     when neither is the bot (arena tournaments).
//   - start: the position the leg started from (the random 12-disc start):
//     board as the API sends boards (a1 first, 0 empty, 1 black, 2 white),
//     turn (the colour to move), placed [black, white] (discs placed,
//     start included; reversi's cap counts them), and opening, the moves
//     that made the start from the rules' initial position when known.
//   - clock_ms: each colour's time for the leg.
//   - moves: every move after the start, in order: color, move (square
//     number row*size+col, −1 for a pass), square (its name, "pass"),
//     time_ms (the time it took, from the server's times), clock_ms (the
//     mover's clock after it), and for the bot's own moves when known:
//     score (the engine's evaluation for the mover, in discs), depth,
//     exact, source ("engine", "forced", "fallback").
//   - final_clocks_ms, discs, result_discs: [black, white] at the end;
//     result_discs are the discs that count (they differ after a timeout).
//   - leg_status: finished, timeout or stopped. winner: 1, 2, or 0 for a
//     draw, by result_discs and the mode (anti: fewer wins).
//   - result: the leg from the bot's side (win, loss, draw; "" when
//     my_color is 0); match_result: the match's (win, loss, draw, aborted,
//     unknown) when it was known; reason: the match's finish_reason.
//   - started, ended: RFC 3339 times.
//
// Fields may be added in later versions of schema 1; readers ignore fields
// they do not know.
package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/engines/othello"
)

// Schema is the version of the JSON lines this package writes.
const Schema = 1

// Sources of Game.Source.
const (
	SourceFlipSight = "flipsight"
	SourceArena     = "arena"
)

// Results of Game.Result and Game.MatchResult.
const (
	Win     = "win"
	Loss    = "loss"
	Draw    = "draw"
	Aborted = "aborted"
	Unknown = "unknown"
)

// Game is one finished leg. The JSON form is the schema in the package
// documentation.
type Game struct {
	Schema  int    `json:"schema"`
	ID      string `json:"id"`
	Source  string `json:"source"`
	MatchID int64  `json:"match_id"`
	Leg     int    `json:"leg"`
	Human   bool   `json:"human"`
	Ranked  bool   `json:"ranked"`
	Round   int64  `json:"round,omitempty"`

	Mode      string `json:"mode"`
	BoardSize int    `json:"board_size"`
	Blocked   []int  `json:"blocked"`

	Black   Player `json:"black"`
	White   Player `json:"white"`
	MyColor int    `json:"my_color"`

	Start   Start  `json:"start"`
	ClockMS int64  `json:"clock_ms"`
	Moves   []Move `json:"moves"`

	FinalClocksMS [2]int64 `json:"final_clocks_ms"`
	Discs         [2]int   `json:"discs"`
	ResultDiscs   [2]int   `json:"result_discs"`
	LegStatus     string   `json:"leg_status"`
	Winner        int      `json:"winner"`
	Result        string   `json:"result"`
	MatchResult   string   `json:"match_result,omitempty"`
	Reason        string   `json:"reason,omitempty"`

	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
}

// Player is one side of a game.
type Player struct {
	Name string `json:"name"`
	ID   int64  `json:"id,omitempty"`
	Me   bool   `json:"me,omitempty"`
}

// Start is the position a leg started from.
type Start struct {
	Board   []int  `json:"board"`
	Turn    int    `json:"turn"`
	Placed  [2]int `json:"placed"`
	Opening []int  `json:"opening,omitempty"`
}

// Move is one move of a game.
type Move struct {
	Color  int    `json:"color"`
	Move   int    `json:"move"`
	Square string `json:"square"`
	TimeMS int64  `json:"time_ms"`
	// ClockMS is the mover's remaining time after the move.
	ClockMS int64 `json:"clock_ms"`
	// Score, Depth, Exact and Source are known for the bot's own moves.
	Score  *float64 `json:"score,omitempty"`
	Depth  int      `json:"depth,omitempty"`
	Exact  bool     `json:"exact,omitempty"`
	Source string   `json:"source,omitempty"`
}

// MakeID returns the id of a game: match, leg and end time in ms.
func MakeID(matchID int64, leg int, ended time.Time) string {
	return strconv.FormatInt(matchID, 10) + "-" + strconv.Itoa(leg) + "-" + strconv.FormatInt(ended.UnixMilli(), 10)
}

// ValidID reports whether id has the form MakeID makes (so it is safe in a
// URL and a file name).
func ValidID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Opponent returns the name of the side that is not the bot (black's name
// when neither is).
func (g *Game) Opponent() string {
	if g.MyColor == 1 {
		return g.White.Name
	}
	return g.Black.Name
}

// Position returns the start as a position of the rules.
func (g *Game) Position() (othello.Position, error) {
	mode, err := othello.ParseMode(g.Mode)
	if err != nil {
		return othello.Position{}, fmt.Errorf("game %s: %w", g.ID, err)
	}
	if g.Start.Turn != 1 && g.Start.Turn != 2 {
		return othello.Position{}, fmt.Errorf("game %s: start turn %d", g.ID, g.Start.Turn)
	}
	pos, err := othello.FromBoard(mode, g.Start.Board, othello.Color(g.Start.Turn),
		othello.Placed{Black: g.Start.Placed[0], White: g.Start.Placed[1]}, mode.BlockedSquares())
	if err != nil {
		return othello.Position{}, fmt.Errorf("game %s: start: %w", g.ID, err)
	}
	return pos, nil
}

// Replay plays the moves from the start by the rules and returns the
// position before each move and after the last (len(Moves)+1 positions).
// It fails at the first move the rules refuse, returning the positions up
// to it.
func (g *Game) Replay() ([]othello.Position, error) {
	pos, err := g.Position()
	if err != nil {
		return nil, err
	}
	out := []othello.Position{pos}
	for i, m := range g.Moves {
		if m.Color != int(pos.Turn) {
			return out, fmt.Errorf("game %s move %d: %s to move, not colour %d", g.ID, i+1, pos.Turn, m.Color)
		}
		next, err := pos.Play(m.Move)
		if err != nil {
			return out, fmt.Errorf("game %s move %d: %w", g.ID, i+1, err)
		}
		pos = next
		out = append(out, pos)
	}
	return out, nil
}

// Check reports the first problem of a game read from outside: fields out
// of range or moves the rules refuse.
func (g *Game) Check() error {
	if g.Schema != Schema {
		return fmt.Errorf("game %q: schema %d, want %d", g.ID, g.Schema, Schema)
	}
	if !ValidID(g.ID) {
		return fmt.Errorf("game: id %q", g.ID)
	}
	mode, err := othello.ParseMode(g.Mode)
	if err != nil {
		return fmt.Errorf("game %s: %w", g.ID, err)
	}
	if g.BoardSize != mode.Size() {
		return fmt.Errorf("game %s: board size %d for %s", g.ID, g.BoardSize, mode)
	}
	if len(g.Moves) > 2*mode.Squares()+8 {
		return fmt.Errorf("game %s: %d moves", g.ID, len(g.Moves))
	}
	_, err = g.Replay()
	return err
}

// ErrNotStd is returned (wrapped) by GGF, and by a GGF [Writer] and
// Export, for games of other modes.
var ErrNotStd = errors.New("GGF is written for std games only")

// GGF returns the game as a GGF record (std only): players, date, clock,
// result for black (":t" after a timeout), the start in BO[] and every
// move with the bot's evaluation where known and the seconds it took.
func (g *Game) GGF() (string, error) {
	if g.Mode != othello.Std.String() {
		return "", fmt.Errorf("game %s: %w (%s)", g.ID, ErrNotStd, g.Mode)
	}
	start, err := g.Position()
	if err != nil {
		return "", err
	}
	gg := ggf.Game{Start: start, Tags: map[string]string{
		"PB": g.Black.Name, "PW": g.White.Name, "DT": ggf.Date(g.Started),
		"TI": ggf.Clock(time.Duration(g.ClockMS) * time.Millisecond),
		"RE": ggf.Result(g.ResultDiscs[0]-g.ResultDiscs[1], g.LegStatus == "timeout"),
	}}
	for _, m := range g.Moves {
		gm := ggf.Move{Color: othello.Color(m.Color), Move: m.Move, Time: float64(m.TimeMS) / 1000}
		if m.Score != nil {
			gm.Eval, gm.HasEval = *m.Score, true
		}
		gg.Moves = append(gg.Moves, gm)
	}
	s, err := ggf.Format(gg)
	if err != nil {
		return "", fmt.Errorf("game %s: %w", g.ID, err)
	}
	return s, nil
}

// MarshalLine returns the game as one JSON line, newline included.
func (g *Game) MarshalLine() ([]byte, error) {
	b, err := json.Marshal(g)
	if err != nil {
		return nil, fmt.Errorf("encode game %s: %w", g.ID, err)
	}
	return append(b, '\n'), nil
}

// ParseLine reads one JSON line written by MarshalLine and checks it.
func ParseLine(line []byte) (Game, error) {
	var g Game
	if err := json.Unmarshal(line, &g); err != nil {
		return Game{}, fmt.Errorf("game line: %w", err)
	}
	if err := g.Check(); err != nil {
		return Game{}, err
	}
	return g, nil
}

// Summary is what a list of games shows: no board, no moves.
type Summary struct {
	ID          string    `json:"id"`
	Source      string    `json:"source"`
	MatchID     int64     `json:"match_id"`
	Leg         int       `json:"leg"`
	Human       bool      `json:"human"`
	Ranked      bool      `json:"ranked"`
	Mode        string    `json:"mode"`
	Black       string    `json:"black"`
	White       string    `json:"white"`
	MyColor     int       `json:"my_color"`
	Opponent    string    `json:"opponent"`
	Discs       [2]int    `json:"result_discs"`
	LegStatus   string    `json:"leg_status"`
	Result      string    `json:"result"`
	MatchResult string    `json:"match_result,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	Moves       int       `json:"moves"`
	Started     time.Time `json:"started"`
	Ended       time.Time `json:"ended"`
}

// Summary returns the game's summary.
func (g *Game) Summary() Summary {
	return Summary{ID: g.ID, Source: g.Source, MatchID: g.MatchID, Leg: g.Leg, Human: g.Human, Ranked: g.Ranked,
		Mode: g.Mode, Black: g.Black.Name, White: g.White.Name, MyColor: g.MyColor, Opponent: g.Opponent(),
		Discs: g.ResultDiscs, LegStatus: g.LegStatus, Result: g.Result, MatchResult: g.MatchResult,
		Reason: g.Reason, Moves: len(g.Moves), Started: g.Started, Ended: g.Ended}
}

// LegWinner returns the winner of a leg by the discs that count: 1 black,
// 2 white, 0 a draw (anti: fewer wins).
func LegWinner(mode string, discs [2]int) int {
	b, w := discs[0], discs[1]
	if mode == othello.Anti.String() {
		b, w = w, b
	}
	switch {
	case b > w:
		return 1
	case w > b:
		return 2
	}
	return 0
}

// LegResult returns the leg's result for myColor (1 or 2; "" for 0).
func LegResult(winner, myColor int) string {
	switch {
	case myColor != 1 && myColor != 2:
		return ""
	case winner == 0:
		return Draw
	case winner == myColor:
		return Win
	}
	return Loss
}

// cloneGame returns a deep copy.
func cloneGame(g Game) Game {
	g.Blocked = slices.Clone(g.Blocked)
	g.Start.Board = slices.Clone(g.Start.Board)
	g.Start.Opening = slices.Clone(g.Start.Opening)
	g.Moves = slices.Clone(g.Moves)
	return g
}
