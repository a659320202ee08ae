package arena

import (
	"fmt"
	"slices"
	"time"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// maxRounds bounds the rounds of a room asked for over HTTP.
const maxRounds = 100

// HumanOptions describe a test human match: a "human" played by the server
// (the first legal move, at once) against a registered bot.
type HumanOptions struct {
	// Bot is the name of the bot challenged.
	Bot string
	// Mode is the game (std by default).
	Mode othello.Mode
	// Clock is each side's time (the server's per-leg clock when 0).
	Clock time.Duration
	// BotBlack gives the bot black; otherwise the human is black.
	BotBlack bool
	// XOT starts std from the initial position plus 8 random moves, given
	// in the leg's history.
	XOT bool
	// Rounds is how many rounds the room plays (1 when 0): when a round
	// ends, the next starts RoundGap later in the same room (the same id,
	// −room_id, and room_created_at; round_no one higher; colours swapped),
	// running at once, as a player who asks for a rematch in the room.
	Rounds int
	// RoundGap is the pause between rounds (1 s when 0), while the room
	// shows the finished round.
	RoundGap time.Duration
}

// CreateHuman makes a pending human match for the bot (negative id, one
// leg), which the bot accepts with agent_accept like the site's. It returns
// the match id.
func (s *Server) CreateHuman(o HumanOptions) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.botByName(o.Bot)
	if b == nil || b.builtin {
		return 0, fmt.Errorf("human match: no registered bot %q", o.Bot)
	}
	if !b.modes[o.Mode] {
		return 0, fmt.Errorf("human match: bot %q does not play %s", o.Bot, o.Mode)
	}
	if o.XOT && o.Mode != othello.Std {
		return 0, fmt.Errorf("human match: XOT is std only")
	}
	pending := 0
	for _, m := range s.matches {
		if m.human && m.botA == b.id && m.status == flipsight.MatchPending {
			pending++
		}
	}
	if pending >= maxPendingChallenges {
		return 0, fmt.Errorf("human match: bot %q already has %d pending human matches", o.Bot, pending)
	}
	now := s.nowMS()
	clock := o.Clock
	if clock <= 0 {
		clock = s.cfg.ClockPerLeg
	}
	room := s.nextRoom
	s.nextRoom++
	m := &match{
		id:        -room,
		human:     true,
		roomID:    room,
		botA:      b.id,
		mode:      o.Mode,
		clockMS:   clock.Milliseconds(),
		status:    flipsight.MatchPending,
		createdMS: now,
		expiresMS: now + s.cfg.ChallengeTTL.Milliseconds(),
		roundNo:   1,
		rounds:    max(1, int64(o.Rounds)),
		roundGap:  o.RoundGap.Milliseconds(),
		roomAt:    time.UnixMilli(now).UTC().Format(time.DateTime),
		xot:       o.XOT,
	}
	if m.roundGap <= 0 {
		m.roundGap = time.Second.Milliseconds()
	}
	black := 1
	if o.BotBlack {
		black = 0
	}
	m.legs = nil
	m.start = othello.New(o.Mode)
	m.ranked = false
	s.matches[m.id] = m
	m.humanBlack = black
	s.log.Info("human challenge", "match", m.id, "bot", b.name, "mode", o.Mode.String(), "xot", o.XOT)
	s.changed(m)
	return m.id, nil
}

// startHuman starts an accepted human match: one leg from the rules' start
// (XOT: plus 8 random moves in the history), the server passing for
// whoever must.
func (s *Server) startHuman(m *match, now int64) {
	black := m.humanBlack
	pos := othello.New(m.mode)
	l := s.newLeg(m, pos, black, now)
	if m.xot {
		for {
			p := othello.New(m.mode)
			var hist []flipsight.HistoryEntry
			for i := 0; i < 8; i++ {
				legal := p.LegalMoves()
				if len(legal) == 0 {
					break
				}
				mv := legal[s.rng.IntN(len(legal))]
				part := black
				if p.Turn == othello.White {
					part = 1 - black
				}
				hist = append(hist, flipsight.HistoryEntry{Color: int(p.Turn), Participant: ptr(part), Move: flipsight.SquareMove(mv), AtMS: now})
				p, _ = p.Play(mv)
			}
			if len(hist) == 8 && len(p.LegalMoves()) > 0 {
				l.pos, l.history = p, hist
				break
			}
		}
	}
	m.legs = []*leg{l}
	m.status = flipsight.MatchRunning
	m.startMS = now
}

// nextRound starts the room's next round if one is due at now: the same
// match id and room, round_no one higher, the colours swapped, one new leg.
// It reports whether it started one.
func (s *Server) nextRound(m *match, now int64) bool {
	if !m.human || m.status != flipsight.MatchFinished || m.roundNo >= m.rounds || now < m.endMS+m.roundGap {
		return false
	}
	m.roundNo++
	m.humanBlack = 1 - m.humanBlack
	m.winner, m.reason, m.endMS = nil, nil, 0
	m.moved = [2]bool{}
	// No longer an ended match: prune must not forget the room.
	if i := slices.Index(s.finished, m.id); i >= 0 {
		s.finished = slices.Delete(s.finished, i, i+1)
	}
	s.startHuman(m, now)
	s.log.Info("human room: next round", "match", m.id, "round", m.roundNo)
	s.changed(m)
	return true
}
