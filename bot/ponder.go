package bot

import (
	"context"
	"errors"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/flipsight"
)

// Pondering: after each own move the bot lets its engine think on the
// opponent's time when the engine can (engines.Ponderer: the built-in
// engine; the external adapters cannot) and Options.Ponder is on. One
// ponder runs per leg, from the move's report until the leg shows the
// opponent's reply, the leg or match ends, or the bot stops; its context is
// cancelled then, by the loop. The engine uses only idle cores and gives
// them up at once to any move's search, so an own turn never waits for a
// ponder.

// startPonder starts pondering on leg i after the bot's move at revision
// rev, unless the opponent has replied already (loop).
func (b *Bot) startPonder(m *match, i int, rev int64, req engines.PonderRequest) {
	ls := m.legs[i]
	l := &ls.leg
	if b.stopping() || l.Status != flipsight.LegActive || l.Revision > rev+1 || (l.Revision > rev && b.myMove(m, i)) {
		return // the opponent has moved already, or the leg is over
	}
	key := legKey{m.id, i}
	if m.sess == nil {
		return
	}
	s := m.sess.s
	ls.stopPonder()
	ctx, cancel := context.WithCancel(b.pondering)
	ls.ponder, ls.ponderRev = cancel, rev
	b.ponders.Add(1)
	go func() {
		defer b.ponders.Done()
		defer cancel()
		// The session's close waits for this ponder.
		if err := s.Ponder(ctx, key.leg, req); err != nil && !errors.Is(err, engines.ErrNoPonder) {
			b.log.Debug("ponder failed", "match", key.match, "leg", key.leg, "err", err)
		}
	}()
}

// stopPonder cancels the leg's ponder, if any (loop).
func (ls *legState) stopPonder() {
	if ls.ponder != nil {
		ls.ponder()
		ls.ponder = nil
	}
}

// ponderDone reports whether the leg's ponder must stop in the leg's new
// state l: the opponent has moved (the revision went past the one after
// the bot's move, or it is the bot's move), or the leg has ended (loop).
func (ls *legState) ponderDone(l *flipsight.Leg, mine bool) bool {
	return l.Status != flipsight.LegActive || l.Revision > ls.ponderRev+1 || mine
}
