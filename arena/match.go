package arena

import (
	"fmt"
	"log/slog"
	"time"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// match is a bot-vs-bot pair of legs or a one-leg human match. Guarded by
// Server.mu.
type match struct {
	id         int64
	human      bool
	roomID     int64
	botA       int64 // participant 0 (0 for a human)
	botB       int64 // participant 1 (0 for a human)
	mode       othello.Mode
	clockMS    int64
	status     string
	createdMS  int64
	expiresMS  int64
	auto       bool
	ranked     bool
	startMS    int64
	endMS      int64
	legs       []*leg
	opening    []int
	openHist   []flipsight.HistoryEntry
	start      othello.Position
	winner     *int
	reason     *string
	moved      [2]bool // participant has made a move
	roundNo    int64
	rounds     int64 // human rooms: rounds to play
	roundGap   int64 // human rooms: ms between rounds
	roomAt     string
	xot        bool
	humanBlack int // human matches: the black participant
	// The participants' ratings before and after the match, once
	// ratingApplied (rating.go).
	ratingApplied             bool
	ratingBefore, ratingAfter [2]float64
}

// leg is one game of a match. Clocks are in colour order [black, white]:
// the reference value at turnStart; the side to move's clock runs.
type leg struct {
	pos         othello.Position
	black       int // black participant
	clocks      [2]int64
	turnStart   int64
	revision    int64
	history     []flipsight.HistoryEntry
	status      string
	resultDiscs []int
	finishedMS  *int64
}

func (m *match) has(botID int64) bool {
	return botID != 0 && (m.botA == botID || m.botB == botID)
}

// participant returns the bot's participant number, or -1.
func (m *match) participant(botID int64) int {
	switch {
	case botID != 0 && m.botA == botID:
		return 0
	case botID != 0 && m.botB == botID:
		return 1
	}
	return -1
}

func (m *match) botOf(p int) int64 {
	if p == 0 {
		return m.botA
	}
	return m.botB
}

// mover returns the participant to move in l.
func (l *leg) mover() int {
	if l.pos.Turn == othello.Black {
		return l.black
	}
	return 1 - l.black
}

func (l *leg) active() bool { return l.status == flipsight.LegActive }

// remaining returns the side to move's clock at now.
func (l *leg) remaining(now int64) int64 {
	return l.clocks[l.pos.Turn-1] - (now - l.turnStart)
}

// startPair begins a bot-vs-bot match at now from a random start.
func (s *Server) startPair(m *match, now int64) {
	pos, moves := othello.RandomOpening(m.mode, s.rng)
	m.start = pos
	m.opening = moves
	m.openHist = make([]flipsight.HistoryEntry, 0, len(moves))
	p := othello.New(m.mode)
	for _, mv := range moves {
		for p.MustPass() {
			p, _ = p.Play(othello.Pass)
		}
		m.openHist = append(m.openHist, flipsight.HistoryEntry{Color: int(p.Turn), Move: flipsight.SquareMove(mv)})
		p, _ = p.Play(mv)
	}
	m.legs = []*leg{s.newLeg(m, pos, 0, now), s.newLeg(m, pos, 1, now)}
	m.status = flipsight.MatchRunning
	m.startMS = now
}

func (s *Server) newLeg(m *match, pos othello.Position, black int, now int64) *leg {
	return &leg{
		pos:       pos,
		black:     black,
		clocks:    [2]int64{m.clockMS, m.clockMS},
		turnStart: now,
		history:   []flipsight.HistoryEntry{},
		status:    flipsight.LegActive,
	}
}

// advance applies everything due in a running match up to now, in time
// order: leg timeouts, the no-first-move abort and disconnect losses.
func (s *Server) advance(m *match, now int64) {
	for m.status == flipsight.MatchRunning {
		// The earliest due event.
		at, kind, which := int64(0), "", -1
		consider := func(t int64, k string, w int) {
			if t <= now && (kind == "" || t < at) {
				at, kind, which = t, k, w
			}
		}
		for i, l := range m.legs {
			if l.active() {
				consider(l.turnStart+l.clocks[l.pos.Turn-1], "timeout", i)
			}
		}
		if !m.human && !s.cfg.NoFirstMoveAbort && (!m.moved[0] || !m.moved[1]) {
			consider(m.startMS+s.cfg.FirstMove.Milliseconds(), "abort", -1)
		}
		if !s.cfg.NoDisconnectLoss {
			for p := 0; p < 2; p++ {
				b := s.botByID(m.botOf(p))
				if b == nil {
					continue
				}
				if ok, since := s.connected(b, now); !ok {
					other := s.botByID(m.botOf(1 - p))
					if other == nil || s.online(other, now) {
						consider(max(since, m.startMS)+s.cfg.Disconnect.Milliseconds()+1, "disconnect", p)
					}
				}
			}
		}
		switch kind {
		case "":
			return
		case "timeout":
			s.timeout(m, m.legs[which], at)
		case "abort":
			s.endMatch(m, at, flipsight.MatchAborted, flipsight.FinishNoFirstMove, nil)
		case "disconnect":
			w := 1 - which
			s.endMatch(m, at, flipsight.MatchFinished, flipsight.FinishDisconnect, &w)
		}
	}
}

// timeout ends leg l at time at: the side to move ran out of time. Its
// result_discs give the whole board to the opponent (anti: to itself).
func (s *Server) timeout(m *match, l *leg, at int64) {
	c := l.pos.Turn
	l.clocks[c-1] = 0
	l.turnStart = at
	l.status = flipsight.LegTimeout
	l.finishedMS = ptr(at)
	l.revision++
	usable := m.mode.Squares() - len(m.mode.BlockedSquares())
	rd := []int{0, 0}
	if m.mode.LessWins() {
		rd[c-1] = usable
	} else {
		rd[2-c] = usable
	}
	l.resultDiscs = rd
	s.maybeFinish(m, at)
	s.changed(m)
}

// maybeFinish ends the match when no leg is active.
func (s *Server) maybeFinish(m *match, at int64) {
	timeouts := 0
	for _, l := range m.legs {
		if l.active() {
			return
		}
		if l.status == flipsight.LegTimeout {
			timeouts++
		}
	}
	reason := flipsight.FinishDiscs
	switch {
	case timeouts == 1 || (timeouts > 0 && len(m.legs) == 1):
		reason = flipsight.FinishTimeout
	case timeouts >= 2:
		reason = flipsight.FinishDoubleTimeout
	}
	w := m.leader()
	s.endMatch(m, at, flipsight.MatchFinished, reason, w)
}

// totals returns the participants' scores: discs per leg, result_discs
// after a timeout.
func (m *match) totals() [2]int {
	var t [2]int
	for _, l := range m.legs {
		b, w := l.pos.Count()
		if l.resultDiscs != nil {
			b, w = l.resultDiscs[0], l.resultDiscs[1]
		}
		t[l.black] += b
		t[1-l.black] += w
	}
	return t
}

// leader returns the participant ahead on totals (fewer discs in anti), nil
// for a tie.
func (m *match) leader() *int {
	t := m.totals()
	a, b := t[0], t[1]
	if m.mode.LessWins() {
		a, b = b, a
	}
	switch {
	case a > b:
		return ptr(0)
	case b > a:
		return ptr(1)
	}
	return nil
}

// endMatch closes a running match: active legs are stopped.
func (s *Server) endMatch(m *match, at int64, status, reason string, winner *int) {
	for _, l := range m.legs {
		if l.active() {
			l.clocks[l.pos.Turn-1] = max(0, l.remaining(at))
			l.turnStart = at
			l.status = flipsight.LegStopped
			l.finishedMS = ptr(at)
			l.revision++
		}
	}
	m.status = status
	m.reason = &reason
	m.winner = winner
	m.endMS = at
	s.ended(m)
	s.rate(m)
	a, b := s.botName(m.botA), s.botName(m.botB)
	t := m.totals()
	s.log.Info("match ended", "match", m.id, "mode", m.mode.String(), "a", a, "b", b,
		"status", status, "reason", reason, "totals", fmt.Sprintf("%d-%d", t[0], t[1]), "winner", winnerName(winner, a, b))
	s.changed(m)
}

func winnerName(w *int, a, b string) string {
	switch {
	case w == nil:
		return "draw"
	case *w == 0:
		return a
	}
	return b
}

func (s *Server) botName(id int64) string {
	if b := s.botByID(id); b != nil {
		return b.name
	}
	return "human"
}

// play applies move by participant p in leg li of m at now, checking
// revision, turn and legality. It returns "" on success or the error string.
func (s *Server) play(m *match, li int, revision int64, p int, move int, now int64) flipsight.ErrorCode {
	s.advance(m, now)
	if m.status != flipsight.MatchRunning {
		if li >= 0 && li < len(m.legs) && m.legs[li].status == flipsight.LegTimeout {
			return flipsight.CodeMatchTimedOut
		}
		return flipsight.CodeMatchNotRunning
	}
	if li < 0 || li >= len(m.legs) {
		return flipsight.CodeLegFinished
	}
	l := m.legs[li]
	switch l.status {
	case flipsight.LegActive:
	case flipsight.LegTimeout:
		return flipsight.CodeMatchTimedOut
	default:
		return flipsight.CodeLegFinished
	}
	if revision != l.revision {
		return flipsight.CodeStaleRevision
	}
	if l.mover() != p {
		return flipsight.CodeNotYourTurn
	}
	if move == othello.Pass && m.human {
		return flipsight.CodeIllegalMove
	}
	next, err := l.pos.Play(move)
	if err != nil {
		return flipsight.CodeIllegalMove
	}
	s.applyMove(m, l, p, move, next, now)
	return ""
}

// applyMove records a legal move and moves the clock to the other side. In
// human matches forced passes follow at once.
func (s *Server) applyMove(m *match, l *leg, p, move int, next othello.Position, now int64) {
	c := l.pos.Turn
	l.clocks[c-1] -= now - l.turnStart
	l.turnStart = now
	l.history = append(l.history, flipsight.HistoryEntry{Color: int(c), Participant: ptr(p), Move: flipsight.SquareMove(move), AtMS: now})
	l.pos = next
	l.revision++
	m.moved[p] = true
	if s.log.Enabled(s.ctx, slog.LevelDebug) {
		b, w := next.Count()
		li := 0
		if len(m.legs) > 1 && m.legs[1] == l {
			li = 1
		}
		s.log.Debug("move", "match", m.id, "leg", li, "bot", s.botName(m.botOf(p)), "color", c.String(),
			"move", othello.SquareName(move, m.mode.Size()), "discs", fmt.Sprintf("%d-%d", b, w),
			"clock", clockDur(l.clocks[c-1]).Round(100*time.Millisecond).String())
	}
	if m.human {
		for l.pos.MustPass() {
			q := l.mover()
			l.history = append(l.history, flipsight.HistoryEntry{Color: int(l.pos.Turn), Participant: ptr(q), Move: flipsight.Pass, AtMS: now})
			l.pos, _ = l.pos.Play(othello.Pass)
		}
	}
	if l.pos.GameOver() {
		l.status = flipsight.LegFinished
		l.finishedMS = ptr(now)
		s.maybeFinish(m, now)
	}
	s.changed(m)
}

// advanceAll advances every running match and expires pending challenges.
func (s *Server) advanceAll(now int64) {
	for _, m := range s.matches {
		switch m.status {
		case flipsight.MatchRunning:
			s.advance(m, now)
		case flipsight.MatchPending:
			s.expire(m, now)
		case flipsight.MatchFinished:
			s.nextRound(m, now)
		}
	}
}

// expire ends a pending challenge past its deadline; an ignored automatic
// offer takes its bot out of automatic matching for a while.
func (s *Server) expire(m *match, now int64) bool {
	if m.status != flipsight.MatchPending || now < m.expiresMS {
		return false
	}
	m.status = flipsight.MatchExpired
	m.endMS = now
	s.ended(m)
	if m.auto {
		if b := s.botByID(m.botB); b != nil {
			b.autoOffUntil = now + DefaultAutoMatchPause.Milliseconds()
		}
	}
	s.log.Info("challenge expired", "match", m.id)
	s.changed(m)
	return true
}

// prune forgets ended matches older than KeepFinished, and the oldest
// beyond MaxFinished, so memory stays bounded.
func (s *Server) prune(now int64) {
	keep := s.cfg.KeepFinished.Milliseconds()
	for len(s.finished) > 0 {
		m := s.matches[s.finished[0]]
		if m != nil && now-m.endMS < keep && len(s.finished) <= s.cfg.MaxFinished {
			break
		}
		for k := range s.thinking {
			if k.match == s.finished[0] {
				delete(s.thinking, k)
			}
		}
		delete(s.matches, s.finished[0])
		s.finished = s.finished[1:]
	}
}

func ptr[T any](v T) *T { return &v }

// clockDur converts a leg clock for logs.
func clockDur(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
