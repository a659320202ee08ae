package flipsight

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// ErrBadObject wraps the reason a value from the server was refused: a
// number out of its range, a board that does not fit its mode, a string
// longer than any the service sends. The message names the field and the
// figures, never the offending text itself.
var ErrBadObject = errors.New("flipsight: bad object from the server")

// Limits on what the server may send. They are far above anything the
// service sends (names are 2–24 characters there; clocks are minutes), so
// that only broken or hostile values are refused.
const (
	// MaxNameLen bounds a bot's or owner's name, in characters.
	MaxNameLen = 64
	// MaxShortText bounds identifiers and enumerations (status, mode,
	// kind, finish reason), in bytes.
	MaxShortText = 32
	// MaxStampText bounds date strings (created_at, room_created_at), in
	// bytes.
	MaxStampText = 64
	// MaxURLText bounds a URL (photo, flag), in bytes.
	MaxURLText = 2048
	// MaxBioText bounds a bot's biography, in bytes.
	MaxBioText = 4096
	// MaxMoveText bounds a move in its string form ("j10", "pass"), in
	// bytes.
	MaxMoveText = 8
	// MaxClockMS bounds a clock, in milliseconds either side of zero
	// (about 11.5 days).
	MaxClockMS = 1e9
	// MaxTimeLimitSec bounds a match's time limit (one day).
	MaxTimeLimitSec = 86400
	// MaxGames bounds a bot's supported_games list.
	MaxGames = 16
	// MaxLegs bounds a match's legs (a bot-vs-bot pair).
	MaxLegs = 2
	// MaxPollMatches bounds the matches of one poll answer: a bot plays a
	// few at once (the service's default is 2) and the answer lists its own
	// matches only, so an answer with more is refused whole rather than
	// decoded into thousands of tracked matches.
	MaxPollMatches = 256
	// MaxPollBots bounds the bots and record_bots lists of a poll answer.
	MaxPollBots = 10000
	// maxID bounds ids, revisions and millisecond times: the integers a
	// JSON number carries exactly.
	maxID = 1<<53 - 1
)

// ModeBoardSize returns the board size of a known game mode (8 or 10) and
// false for a mode this package does not know.
func ModeBoardSize(mode string) (int, bool) {
	switch mode {
	case "std", "anti", "reversi":
		return 8, true
	case "grand", "octagon":
		return 10, true
	}
	return 0, false
}

// bad describes a refused value; Check and the answers' checks wrap it
// with ErrBadObject once.
func bad(format string, args ...any) error { return fmt.Errorf(format, args...) }

// refuse wraps err (when not nil) with ErrBadObject.
func refuse(err error) error {
	if err == nil || errors.Is(err, ErrBadObject) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrBadObject, err)
}

// checker is implemented by the answers DecodeAnswer checks after decoding.
type checker interface{ check() error }

func checkText(field, s string, maxBytes int) error {
	if len(s) > maxBytes {
		return bad("%s is %d bytes, at most %d", field, len(s), maxBytes)
	}
	return nil
}

func checkName(field, s string) error {
	if len(s) > 4*MaxNameLen {
		return bad("%s is %d bytes, at most %d", field, len(s), 4*MaxNameLen)
	}
	if n := utf8.RuneCountInString(s); n > MaxNameLen {
		return bad("%s is %d characters, at most %d", field, n, MaxNameLen)
	}
	return nil
}

func checkRange(field string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return bad("%s %d outside %d..%d", field, v, lo, hi)
	}
	return nil
}

func checkFloat(field string, v, limit float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > limit {
		return bad("%s %g outside ±%g", field, v, limit)
	}
	return nil
}

// checkDeviation is checkFloat for a value that cannot be negative (a
// rating deviation).
func checkDeviation(field string, v, limit float64) error {
	if math.IsNaN(v) || v < 0 || v > limit {
		return bad("%s %g outside 0..%g", field, v, limit)
	}
	return nil
}

func checkStamp(field string, ms int64) error { return checkRange(field, ms, 0, maxID) }

func checkOptStamp(field string, ms *int64) error {
	if ms == nil {
		return nil
	}
	return checkStamp(field, *ms)
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

// Check reports whether m is a match object the client can use: ids,
// colours, counts and times in their ranges, the board size that of the
// mode, every board size² cells of 0, 1 or 2, and every string within its
// limit. The error wraps ErrBadObject and names the match and the field.
func (m *Match) Check() error {
	if err := m.check(); err != nil {
		return fmt.Errorf("%w: match %d: %w", ErrBadObject, m.ID, err)
	}
	return nil
}

func (m *Match) check() error {
	if m.ID == 0 {
		return bad("id 0")
	}
	if err := firstErr(
		checkRange("id", m.ID, -maxID, maxID),
		checkRange("room_id", m.RoomID, 0, maxID),
		checkRange("bot_a", m.BotA, 0, maxID),
		checkRange("bot_b", m.BotB, 0, maxID),
		checkText("kind", m.Kind, MaxShortText),
		checkText("game_mode", m.GameMode, MaxShortText),
		checkText("status", m.Status, MaxShortText),
		checkText("created_at", m.CreatedAt, MaxStampText),
		checkRange("time_limit_sec", int64(m.TimeLimitSec), 0, MaxTimeLimitSec),
		checkStamp("expires_ms", m.ExpiresMS),
	); err != nil {
		return err
	}
	if m.RoundNo != nil {
		if err := checkRange("round_no", *m.RoundNo, 0, maxID); err != nil {
			return err
		}
	}
	if m.RoomCreatedAt != nil {
		if err := checkText("room_created_at", *m.RoomCreatedAt, MaxStampText); err != nil {
			return err
		}
	}
	for _, rs := range [][]*float64{m.RatingBefore, m.RatingAfter} {
		if len(rs) > 2 {
			return bad("%d ratings, at most 2", len(rs))
		}
		for _, r := range rs {
			if r != nil {
				if err := checkFloat("rating", *r, 1e6); err != nil {
					return err
				}
			}
		}
	}
	if m.State == nil {
		return nil
	}
	return m.State.check(m.GameMode)
}

func (s *MatchState) check(matchMode string) error {
	mode := s.GameMode
	if mode == "" {
		mode = matchMode
	} else if matchMode != "" && matchMode != mode {
		return bad("state game_mode %.32q differs from the match's %.32q", mode, matchMode)
	}
	if err := firstErr(
		checkText("state game_mode", s.GameMode, MaxShortText),
		checkText("state status", s.Status, MaxShortText),
		checkRange("state revision", s.Revision, 0, maxID),
		checkRange("state time_limit_sec", int64(s.TimeLimitSec), 0, MaxTimeLimitSec),
		checkStamp("started_ms", s.StartedMS),
		checkStamp("last_now_ms", s.LastNowMS),
		checkOptStamp("finished_ms", s.FinishedMS),
	); err != nil {
		return err
	}
	want, known := ModeBoardSize(mode)
	size := s.BoardSize
	switch {
	case size == 0:
		// Absent: a pending match's placeholder state carries only what
		// is known before the game (the spec documents board_size with
		// the legs it sizes). The squares are checked against the mode's
		// board, or the first leg's, or the largest.
		size = want
		if !known {
			size = 10
			if len(s.Legs) > 0 && len(s.Legs[0].Board) == 64 {
				size = 8
			}
		}
	case known && size != want:
		return bad("board_size %d, but %.32q is played on %d", size, mode, want)
	case !known && size != 8 && size != 10:
		return bad("board_size %d, want 8 or 10", size)
	}
	n := size * size
	if s.FinishReason != nil {
		if err := checkText("finish_reason", *s.FinishReason, MaxShortText); err != nil {
			return err
		}
	}
	if s.RoundNo != nil {
		if err := checkRange("state round_no", *s.RoundNo, 0, maxID); err != nil {
			return err
		}
	}
	if s.RoomCreatedAt != nil {
		if err := checkText("state room_created_at", *s.RoomCreatedAt, MaxStampText); err != nil {
			return err
		}
	}
	if err := checkSquares("blocked_squares", s.BlockedSquares, n); err != nil {
		return err
	}
	if len(s.OpeningMoves) > n {
		return bad("%d opening moves on %d squares", len(s.OpeningMoves), n)
	}
	for i, mv := range s.OpeningMoves {
		if err := checkMove(fmt.Sprintf("opening move %d", i), mv, n); err != nil {
			return err
		}
	}
	if err := checkHistory("opening_history", s.OpeningHistory, n); err != nil {
		return err
	}
	if len(s.Legs) > MaxLegs {
		return bad("%d legs, at most %d", len(s.Legs), MaxLegs)
	}
	if len(s.Totals) > 2 {
		return bad("%d totals, at most 2", len(s.Totals))
	}
	for _, t := range s.Totals {
		if err := checkRange("total", int64(t), 0, int64(MaxLegs*n)); err != nil {
			return err
		}
	}
	if s.Winner != nil && *s.Winner != 0 && *s.Winner != 1 {
		return bad("winner %d, want 0, 1 or null", *s.Winner)
	}
	for i := range s.Legs {
		if err := s.Legs[i].check(n); err != nil {
			return fmt.Errorf("leg %d: %w", i, err)
		}
	}
	return nil
}

func (l *Leg) check(n int) error {
	// A leg without a board (a placeholder before the game starts) is
	// kept; one with a board has all of it.
	if len(l.Board) != n && (len(l.Board) != 0 || l.Status == LegActive) {
		return bad("board has %d cells, want %d", len(l.Board), n)
	}
	for i, c := range l.Board {
		if c != Empty && c != Black && c != White {
			return bad("board cell %d is %d, want 0, 1 or 2", i, c)
		}
	}
	if err := firstErr(
		checkRange("turn", int64(l.Turn), 0, 2),
		checkRange("black_participant", int64(l.BlackParticipant), 0, 1),
		checkRange("placed black", int64(l.Placed.Black), 0, int64(n)),
		checkRange("placed white", int64(l.Placed.White), 0, int64(n)),
		checkStamp("turn_started_ms", l.TurnStartedMS),
		checkRange("revision", l.Revision, 0, maxID),
		checkText("status", l.Status, MaxShortText),
		checkOptStamp("finished_ms", l.FinishedMS),
		checkSquares("legal_moves", l.LegalMoves, n),
		checkHistory("history", l.History, n),
	); err != nil {
		return err
	}
	if len(l.ClocksMS) > 2 {
		return bad("%d clocks, at most 2", len(l.ClocksMS))
	}
	for _, c := range l.ClocksMS {
		if err := checkFloat("clock", c, MaxClockMS); err != nil {
			return err
		}
	}
	for _, ds := range [][]int{l.Discs, l.ResultDiscs} {
		if len(ds) > 2 {
			return bad("%d disc counts, at most 2", len(ds))
		}
		for _, d := range ds {
			if err := checkRange("discs", int64(d), 0, int64(n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkSquares checks a list of squares of a board of n squares.
func checkSquares(field string, sq []int, n int) error {
	if len(sq) > n {
		return bad("%s has %d squares, at most %d", field, len(sq), n)
	}
	for _, s := range sq {
		if s < 0 || s >= n {
			return bad("%s has square %d outside 0..%d", field, s, n-1)
		}
	}
	return nil
}

// checkMove checks a move on a board of n squares: a square, the pass -1,
// or a short string (decoded by the rules package).
func checkMove(field string, mv Move, n int) error {
	if mv.IsText() {
		return checkText(field, mv.Text, MaxMoveText)
	}
	if mv.Square < -1 || mv.Square >= n {
		return bad("%s is square %d outside -1..%d", field, mv.Square, n-1)
	}
	return nil
}

// checkHistory checks a move list of a board of n squares: a leg has at
// most n placements and a pass between two of them.
func checkHistory(field string, h []HistoryEntry, n int) error {
	if len(h) > 2*n+2 {
		return bad("%s has %d moves, at most %d", field, len(h), 2*n+2)
	}
	for i, e := range h {
		if e.Color < Empty || e.Color > White {
			return bad("%s move %d has colour %d", field, i, e.Color)
		}
		if e.Participant != nil && *e.Participant != 0 && *e.Participant != 1 {
			return bad("%s move %d has participant %d", field, i, *e.Participant)
		}
		if err := firstErr(checkStamp(fmt.Sprintf("%s move %d at_ms", field, i), e.AtMS),
			checkMove(fmt.Sprintf("%s move %d", field, i), e.Move, n)); err != nil {
			return err
		}
	}
	return nil
}

// Check reports whether b is a bot object the client can use: a positive
// id, names, texts and lists within their limits, finite ratings. The
// error wraps ErrBadObject and names the bot by id, never by its name.
func (b *Bot) Check() error {
	if err := b.check(); err != nil {
		return fmt.Errorf("%w: bot %d: %w", ErrBadObject, b.ID, err)
	}
	return nil
}

func (b *Bot) check() error {
	if err := firstErr(
		checkRange("id", b.ID, 1, maxID),
		checkName("name", b.Name),
		checkText("owner_id", string(b.OwnerID), MaxStampText),
		checkName("owner_name", b.OwnerName),
		checkText("engine_level", string(b.EngineLevel), MaxShortText),
		checkText("bio", b.Bio, MaxBioText),
		checkText("registered_at", b.RegisteredAt, MaxStampText),
		checkStamp("registered_at_ts", b.RegisteredAtTS),
		checkText("photo", b.Photo, MaxURLText),
	); err != nil {
		return err
	}
	if len(b.SupportedGames) > MaxGames {
		return bad("%d supported games, at most %d", len(b.SupportedGames), MaxGames)
	}
	for _, g := range b.SupportedGames {
		if err := checkText("supported game", g, MaxShortText); err != nil {
			return err
		}
	}
	if o := b.Owner; o != nil {
		if err := firstErr(
			checkText("owner player_id", string(o.PlayerID), MaxStampText),
			checkName("owner name", o.Name),
			checkText("owner photo", o.Photo, MaxURLText),
			checkText("owner country_code", o.CountryCode, MaxShortText),
			checkName("owner country_name", o.CountryName),
			checkText("owner country_flag_url", o.CountryFlagURL, MaxURLText),
			checkText("owner verified_player_id", string(o.VerifiedPlayerID), MaxStampText),
		); err != nil {
			return err
		}
	}
	if r := b.Rating; r != nil {
		if err := firstErr(
			checkFloat("rating", r.Rating, 1e6),
			checkDeviation("rd", r.RD, 1e6),
			checkFloat("high_rating", r.HighRating, 1e6),
			checkText("rating color", r.Color, MaxShortText),
			checkRange("wins", int64(r.Wins), 0, maxID),
			checkRange("losses", int64(r.Losses), 0, maxID),
			checkRange("draws", int64(r.Draws), 0, maxID),
			checkRange("streak", int64(r.Streak), -maxID, maxID),
			checkRange("best_streak", int64(r.BestStreak), -maxID, maxID),
		); err != nil {
			return err
		}
		if p := r.OfficialProgress; p != nil {
			if err := firstErr(checkText("official_progress kind", p.Kind, MaxShortText),
				checkRange("official_progress current", int64(p.Current), 0, maxID),
				checkRange("official_progress required", int64(p.Required), 0, maxID)); err != nil {
				return err
			}
		}
	}
	if e := b.Environment; e != nil {
		for _, f := range []struct{ name, v string }{{"environment cpu", e.CPU}, {"environment os", e.OS}, {"environment engine", e.Engine}} {
			if len(f.v) > 4*MaxEnvironmentLen || utf8.RuneCountInString(f.v) > MaxEnvironmentLen {
				return bad("%s is over %d characters", f.name, MaxEnvironmentLen)
			}
		}
	}
	return nil
}

// check drops the bots and matches that fail their Check, keeping each
// reason in Refused; a bad top-level value fails the whole answer.
func (p *PollResponse) check() error {
	if err := firstErr(checkStamp("server_now_ms", p.ServerNowMS), checkText("me", string(p.Me), MaxStampText)); err != nil {
		return refuse(err)
	}
	switch {
	case len(p.Matches) > MaxPollMatches:
		return refuse(bad("%d matches, at most %d", len(p.Matches), MaxPollMatches))
	case len(p.Bots) > MaxPollBots || len(p.RecordBots) > MaxPollBots:
		return refuse(bad("%d bots and %d record bots, at most %d each", len(p.Bots), len(p.RecordBots), MaxPollBots))
	}
	p.Refused = nil
	if p.Bot != nil {
		if err := p.Bot.Check(); err != nil {
			p.Refused = append(p.Refused, fmt.Errorf("%w (this bot)", err))
			p.Bot = nil
		}
	}
	p.Bots = p.keepBots(p.Bots)
	p.RecordBots = p.keepBots(p.RecordBots)
	kept := p.Matches[:0]
	for i := range p.Matches {
		if err := p.Matches[i].Check(); err != nil {
			p.Refused = append(p.Refused, err)
			continue
		}
		kept = append(kept, p.Matches[i])
	}
	p.Matches = kept
	return nil
}

func (p *PollResponse) keepBots(bots []Bot) []Bot {
	kept := bots[:0]
	for i := range bots {
		if err := bots[i].Check(); err != nil {
			p.Refused = append(p.Refused, err)
			continue
		}
		kept = append(kept, bots[i])
	}
	return kept
}

func (r *ChallengeResponse) check() error {
	return refuse(firstErr(checkStamp("server_now_ms", r.ServerNowMS), checkRange("match_id", r.MatchID, -maxID, maxID)))
}

func (r *MatchResponse) check() error {
	if err := checkStamp("server_now_ms", r.ServerNowMS); err != nil {
		return refuse(err)
	}
	if r.Match != nil {
		return r.Match.Check()
	}
	return nil
}

// check checks an event's numbers and its match.
func (e *Event) check() error {
	if err := firstErr(checkText("type", e.Type, MaxShortText), checkStamp("server_now_ms", e.ServerNowMS),
		checkRange("bot_id", e.BotID, 0, maxID)); err != nil {
		return refuse(err)
	}
	if e.Match != nil {
		return e.Match.Check()
	}
	return nil
}
