// Package record keeps finished games: one [Game] per leg, in JSON lines
// on disk (see [Store]), with a GGF export (every mode but reversi), and each game's
// [Analysis] beside it once bot/analysis has made one.
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
//     reversi), 8 or 10, and the unusable squares: octagon's 12 (in any
//     order), none for the other modes.
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
//
// A reader trusts no line: ParseLine refuses a line over MaxLineBytes
// unread, and Game.Check every field out of its range (the FlipSight
// client's limits: names of 64 characters, short strings of 32 bytes,
// clocks of 10⁹ ms), blocked squares other than the mode's, more than
// MaxMoves moves, and moves the rules refuse.
//
// # Analyses (schema 1)
//
// An analysis is one JSON object per game, kept by the Store beside the
// game's record (analysis/ID.json in the store's directory; see
// Store.SaveAnalysis). bot/analysis makes it with the built-in engine:
//
//	{"schema":1,"game":"123-0-1796400000000","engine":"flipbot search, depth 14, exact from 20 empties",
//	 "analysed":"2026-12-02T16:50:01Z","elapsed_ms":41230,
//	 "moves":[{"color":1,"move":44,"square":"e6","best":37,"best_square":"f5",
//	           "score":2.5,"played":0.5,"loss":2,"depth":14,"exact":false},…],
//	 "final":{"score":6,"depth":0,"exact":true},"turning_points":[31]}
//
// Fields:
//   - schema: 1; a reader refuses an analysis of another schema (the game
//     is then analysed again).
//   - game: the id of the game analysed. engine: what analysed it (the
//     engine and its limits; at most MaxText*4 bytes).
//   - analysed, elapsed_ms: when it was made and how long it took.
//   - moves: one per move of the game, in its order: color, move and square
//     as the game's; best and best_square, the engine's best move in the
//     position before it (−1 and "pass" for a pass); score, the best
//     move's value for the mover and played, the played move's, both the
//     expected final disc difference for the mover in the mode's scoring
//     (anti: the opponent's discs less the mover's); loss, score − played
//     (never below 0; 0 when the best move was played); depth, the depth of
//     the search that scored the position (its empties when exact); exact,
//     whether score is an exact solve; forced, whether the move was the only legal
//     one (a pass, or a single move).
//   - final: the position after the last move: score for black (the mode's
//     scoring), depth, exact (a finished game's score is its result).
//   - turning_points: the moves (1 = the first) after which the mover's
//     expected outcome became worse: from a win to a draw or a loss, or from
//     a draw to a loss (the sign of its value before and after), by an
//     exact loss of at least an inaccuracy or a midgame one of at least a
//     mistake.
//
// A move's loss is classed by [LossClass]: best below [InaccuracyLoss]
// discs, an inaccuracy below [MistakeLoss], a mistake below [BlunderLoss],
// a blunder from it on.
//
// # Notation
//
// Every view of a game (the appliance's replay and games pages, the
// analysis, `flipbot games show` and `list`, the GGF export) numbers moves
// the same way: by ply, the n-th entry of moves being move n (1 = the
// first move after the start; the position after it is ?ply=n on the
// replay page), a pass counting as a move ([MoveLabel]: "19. b1"). Plies,
// not chess-style pairs of a black and a white move: a pass gives one
// colour two moves in a row, and a leg may start with white to move, so a
// pair number does not name one move; a ply number always does, and it
// is the index the analysis (worst moves, turning points) and the GGF
// move list already use. Discs are black's first with the bot's colour
// named ([DiscsText]: "25–0 (bot black)"), and a side whose worst move
// lost less than an inaccuracy shows [NoMistake] ([Worst.String]).
//
// # Files
//
//   - record.go: [Game], its schema and its checks.
//   - notation.go: how moves, discs and worst moves are written
//     ([MoveLabel], [DiscsText], [Worst.String]).
//   - build.go: [FromLeg], a finished leg's record from the wire's match.
//   - store.go: [Store], the rotating JSON-lines files under a size cap,
//     and [AppendFile].
//   - index.go: the Store's index of its games in the lists' order and
//     its running tallies, which [Store.List] and [Store.Overview] read:
//     a list costs its page, not the games kept.
//   - files.go, files_unix.go, files_other.go: how the Store opens its
//     files (through an os.Root of its directory, with
//     internal/atomicfile.OpenRegular: regular files only, a FIFO never
//     waited for, symbolic links refused) and counts their disk
//     space (blocks on unix, the size rounded up to 4 KiB elsewhere).
//   - query.go: [Filter], which games a list shows, and [Tallies].
//   - export.go: [Writer] and [Store.Export] (JSON lines, GGF).
//   - analysis.go, store_analysis.go: [Analysis], its schema and checks,
//     and the Store's analyses beside their games.
//
// # Imports
//
// It may import flipsight (the wire's match it records, its limits),
// engines/othello (the rules that replay a game) and engines/ggf (the
// GGF export); nothing of the bot, which imports it.
package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/text"
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

// Limits of a game read from outside. They are those of the FlipSight
// client (package flipsight), whose values the records are made of, so
// that every game the bot keeps passes them.
const (
	// MaxLineBytes bounds one JSON line of a game: the largest game Check
	// lets through is under a third of it (TestLargestGameFitsALine).
	MaxLineBytes = 256 << 10
	// MaxNameLen bounds a player's name, in characters (and four times
	// that in bytes).
	MaxNameLen = flipsight.MaxNameLen
	// MaxText bounds the short strings (source, statuses, results,
	// reason, a move's source), in bytes.
	MaxText = flipsight.MaxShortText
	// MaxClockMS bounds every time and clock, in milliseconds.
	MaxClockMS = flipsight.MaxClockMS
	// MaxDepth bounds a move's search depth.
	MaxDepth = 255
)

// ErrBadGame is returned (wrapped) by Check and ParseLine for a game that
// is out of its ranges or does not follow the rules.
var ErrBadGame = errors.New("bad game record")

// MaxMoves returns the most moves a game of mode may hold: every square
// taken once, a pass before each placement, and slack.
func MaxMoves(mode othello.Mode) int { return 2*mode.Squares() + 8 }

// Check reports the first problem of a game read from outside: a field out
// of its range (lengths, colours, counts, clocks, strings), blocked squares
// other than the mode's own, or moves the rules refuse. Every list is
// bounded before it is walked. The error wraps ErrBadGame and names the
// game and the field; text from the record in it is cut to MaxText characters.
func (g *Game) Check() error {
	if err := g.check(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadGame, err)
	}
	return nil
}

func (g *Game) check() error {
	if g.Schema != Schema {
		return fmt.Errorf("game %q: schema %d, want %d", text.Elide(g.ID, MaxText), g.Schema, Schema)
	}
	if !ValidID(g.ID) {
		return fmt.Errorf("game: id %q", text.Elide(g.ID, MaxText))
	}
	mode, err := othello.ParseMode(g.Mode)
	if err != nil {
		return fmt.Errorf("game %s: mode %q: unknown", g.ID, text.Elide(g.Mode, MaxText))
	}
	if g.BoardSize != mode.Size() {
		return fmt.Errorf("game %s: board size %d for %s", g.ID, g.BoardSize, mode)
	}
	n := mode.Squares()
	if len(g.Moves) > MaxMoves(mode) {
		return fmt.Errorf("game %s: %d moves, at most %d for %s", g.ID, len(g.Moves), MaxMoves(mode), mode)
	}
	if err := firstErr(
		checkBlocked(mode, g.Blocked),
		checkText("source", g.Source, MaxText),
		checkRange("leg", int64(g.Leg), 0, flipsight.MaxLegs-1),
		checkRange("round", g.Round, 0, 1<<53-1),
		checkName("black name", g.Black.Name),
		checkName("white name", g.White.Name),
		checkRange("my_color", int64(g.MyColor), 0, 2),
		checkStart(g.Start, n),
		checkRange("clock_ms", g.ClockMS, 0, flipsight.MaxTimeLimitSec*1000),
		checkRange("black's final clock", g.FinalClocksMS[0], 0, MaxClockMS),
		checkRange("white's final clock", g.FinalClocksMS[1], 0, MaxClockMS),
		checkRange("black's discs", int64(g.Discs[0]), 0, int64(n)),
		checkRange("white's discs", int64(g.Discs[1]), 0, int64(n)),
		checkRange("black's result discs", int64(g.ResultDiscs[0]), 0, int64(n)),
		checkRange("white's result discs", int64(g.ResultDiscs[1]), 0, int64(n)),
		checkText("leg_status", g.LegStatus, MaxText),
		checkRange("winner", int64(g.Winner), 0, 2),
		checkResult(g.Result),
		checkText("match_result", g.MatchResult, MaxText),
		checkText("reason", g.Reason, MaxText),
	); err != nil {
		return fmt.Errorf("game %s: %w", g.ID, err)
	}
	for i, m := range g.Moves {
		if err := checkMove(m, mode); err != nil {
			return fmt.Errorf("game %s move %d: %w", g.ID, i+1, err)
		}
	}
	_, err = g.Replay()
	return err
}

// checkBlocked reports whether blocked are the mode's blocked squares (in
// any order), in time bounded by their number.
func checkBlocked(mode othello.Mode, blocked []int) error {
	want := mode.Blocked()
	if w := len(mode.BlockedSquares()); len(blocked) != w {
		return fmt.Errorf("%d blocked squares, %s has %d", len(blocked), mode, w)
	}
	var seen othello.Bits
	for _, sq := range blocked {
		if sq < 0 || sq >= mode.Squares() || !want.Has(sq) || seen.Has(sq) {
			return fmt.Errorf("blocked square %d is not one of %s's", sq, mode)
		}
		seen = seen.Or(othello.Bit(sq))
	}
	return nil
}

// checkStart checks a start's lengths and ranges on a board of n squares;
// Position checks the rest.
func checkStart(s Start, n int) error {
	if len(s.Board) != n {
		return fmt.Errorf("start board has %d cells, want %d", len(s.Board), n)
	}
	if len(s.Opening) > n {
		return fmt.Errorf("opening has %d moves, at most %d", len(s.Opening), n)
	}
	for _, sq := range s.Opening {
		if sq < 0 || sq >= n {
			return fmt.Errorf("opening square %d outside 0..%d", sq, n-1)
		}
	}
	return firstErr(
		checkRange("start turn", int64(s.Turn), 1, 2),
		checkRange("black's placed", int64(s.Placed[0]), 0, int64(n)),
		checkRange("white's placed", int64(s.Placed[1]), 0, int64(n)),
	)
}

// checkMove checks one move's fields; Replay checks that it is legal.
func checkMove(m Move, mode othello.Mode) error {
	if m.Move < othello.Pass || m.Move >= mode.Squares() {
		return fmt.Errorf("square %d outside -1..%d", m.Move, mode.Squares()-1)
	}
	if m.Square != squareName(m.Move, mode.Size()) {
		return fmt.Errorf("square name %q is not that of square %d", text.Elide(m.Square, MaxText), m.Move)
	}
	if m.Score != nil && (math.IsNaN(*m.Score) || math.IsInf(*m.Score, 0)) {
		return errors.New("score is not a number")
	}
	return firstErr(
		checkRange("colour", int64(m.Color), 1, 2),
		checkRange("time_ms", m.TimeMS, 0, MaxClockMS),
		checkRange("clock_ms", m.ClockMS, 0, MaxClockMS),
		checkRange("depth", int64(m.Depth), 0, MaxDepth),
		checkText("source", m.Source, MaxText),
	)
}

func checkResult(r string) error {
	switch r {
	case "", Win, Loss, Draw:
		return nil
	}
	return fmt.Errorf("result %q is not win, loss, draw or empty", text.Elide(r, MaxText))
}

func checkText(field, s string, maxBytes int) error {
	if len(s) > maxBytes {
		return fmt.Errorf("%s is %d bytes, at most %d", field, len(s), maxBytes)
	}
	return nil
}

func checkName(field, s string) error {
	if len(s) > 4*MaxNameLen {
		return fmt.Errorf("%s is %d bytes, at most %d", field, len(s), 4*MaxNameLen)
	}
	if n := utf8.RuneCountInString(s); n > MaxNameLen {
		return fmt.Errorf("%s is %d characters, at most %d", field, n, MaxNameLen)
	}
	return nil
}

func checkRange(field string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s %d outside %d..%d", field, v, lo, hi)
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// ErrNotStd is returned (wrapped) by GGF, and by a GGF [Writer] and
// Export, for games of a mode GGF has no game type for: classic reversi.
// (Its name is from when the GGF export took std games only.)
var ErrNotStd = errors.New("GGF has no form for classic reversi games")

// GGF returns the game as a GGF record (std, anti, grand and octagon, as
// GGS's game types 8, 8a, 10 and 88: see engines/ggf): players, date,
// clock, result for black (":t" after a timeout), the start in BO[] and
// every move with the bot's evaluation where known and the seconds it
// took.
func (g *Game) GGF() (string, error) {
	if !FormatGGF.Expresses(g.Mode) {
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

// ParseLine reads one JSON line written by MarshalLine and checks it
// (Check). A line longer than MaxLineBytes is refused unread.
func ParseLine(line []byte) (Game, error) {
	if len(line) > MaxLineBytes {
		return Game{}, fmt.Errorf("%w: game line of %d bytes, at most %d", ErrBadGame, len(line), MaxLineBytes)
	}
	var g Game
	if err := json.Unmarshal(line, &g); err != nil {
		return Game{}, fmt.Errorf("%w: game line: %w", ErrBadGame, err)
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
	// Analysis summarises the game's analysis once there is one.
	Analysis *AnalysisSummary `json:"analysis,omitempty"`
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
