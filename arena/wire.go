package arena

import (
	"time"

	"flipbot.dev/flipbot/flipsight"
)

// wireMatch returns the full match object as agent_poll lists it.
func (s *Server) wireMatch(m *match, now int64) flipsight.Match {
	out := flipsight.Match{
		ID:            m.id,
		BotA:          m.botA,
		BotB:          m.botB,
		GameMode:      m.mode.String(),
		TimeLimitSec:  int((m.clockMS + 999) / 1000),
		Status:        m.status,
		Auto:          m.auto,
		ExpiresMS:     m.expiresMS,
		Ranked:        m.ranked,
		RatingApplied: m.ratingApplied,
		RatingBefore:  []*float64{nil, nil},
		RatingAfter:   []*float64{nil, nil},
		CreatedAt:     time.UnixMilli(m.createdMS).UTC().Format(time.DateTime),
	}
	if m.ratingApplied {
		out.RatingBefore = []*float64{ptr(m.ratingBefore[0]), ptr(m.ratingBefore[1])}
		out.RatingAfter = []*float64{ptr(m.ratingAfter[0]), ptr(m.ratingAfter[1])}
	}
	if m.human {
		out.Kind = flipsight.KindHuman
		out.RoomID = m.roomID
		out.RoundNo = ptr(m.roundNo)
		out.RoomCreatedAt = ptr(m.roomAt)
	}
	st := &flipsight.MatchState{
		Version:        1,
		GameMode:       m.mode.String(),
		TimeLimitSec:   out.TimeLimitSec,
		Status:         flipsight.StateActive,
		Revision:       0,
		StartedMS:      m.startMS,
		LastNowMS:      now,
		Legs:           []flipsight.Leg{},
		Totals:         []int{0, 0},
		Winner:         m.winner,
		FinishReason:   m.reason,
		BoardSize:      m.mode.Size(),
		BlockedSquares: m.mode.BlockedSquares(),
	}
	switch m.status {
	case flipsight.MatchFinished:
		st.Status = flipsight.StateFinished
		st.FinishedMS = ptr(m.endMS)
	case flipsight.MatchAborted:
		st.Status = flipsight.StateAborted
		st.FinishedMS = ptr(m.endMS)
	}
	if !m.human && m.opening != nil {
		st.OpeningMoves = make([]flipsight.Move, len(m.opening))
		for i, mv := range m.opening {
			st.OpeningMoves[i] = flipsight.SquareMove(mv)
		}
		st.OpeningHistory = m.openHist
	}
	if m.human {
		st.RoundNo = ptr(m.roundNo)
		st.RoomCreatedAt = ptr(m.roomAt)
	}
	if m.legs != nil {
		t := m.totals()
		st.Totals = []int{t[0], t[1]}
		st.Revision = 0
		for _, l := range m.legs {
			st.Legs = append(st.Legs, wireLeg(l))
			st.Revision += l.revision // as in the spec's example: the legs' changes
		}
	}
	out.State = st
	return out
}

func wireLeg(l *leg) flipsight.Leg {
	b, w := l.pos.Count()
	out := flipsight.Leg{
		Board:            l.pos.Board(),
		Turn:             int(l.pos.Turn),
		BlackParticipant: l.black,
		Placed:           flipsight.Placed{Black: l.pos.Placed.Black, White: l.pos.Placed.White},
		ClocksMS:         []float64{float64(l.clocks[0]), float64(l.clocks[1])},
		TurnStartedMS:    l.turnStart,
		Revision:         l.revision,
		History:          append([]flipsight.HistoryEntry{}, l.history...),
		Status:           l.status,
		Discs:            []int{b, w},
		ResultDiscs:      l.resultDiscs,
		FinishedMS:       l.finishedMS,
		LegalMoves:       []int{},
	}
	if l.active() {
		out.LegalMoves = l.pos.LegalMoves()
	}
	return out
}

// shortMatch is the match of the accept, reject and move answers.
func shortMatch(m *match) *flipsight.Match {
	return &flipsight.Match{ID: m.id, Status: m.status, BotA: m.botA, BotB: m.botB}
}
