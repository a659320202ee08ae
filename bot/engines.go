package bot

import (
	"context"
	"sync"

	"flipbot.dev/flipbot/engines"
)

// matchSession is a match's engines (its engines.Session) with what the
// bot notes of them for the match: the legs that get no grace. The loop
// opens it when the match is accepted or picked up (openSession) and
// closes it, once, when the match ends (closeSession); the move tasks use
// it meanwhile. A failed leg's engine is replaced inside the session, so
// the match keeps it to its end.
type matchSession struct {
	s engines.Session

	mu sync.Mutex
	// graceless holds the legs whose engine once stopped without its best
	// move: the bot does not wait for their engines past their time again
	// in that match (a replacement included).
	graceless map[int]bool
}

// graceFor reports whether the bot waits a moment past its time for the
// best move so far of leg's engine.
func (ms *matchSession) graceFor(leg int) bool {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return !ms.graceless[leg]
}

// noGrace notes that leg's engine stopped without a move when its time
// was up.
func (ms *matchSession) noGrace(leg int) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.graceless[leg] = true
}

// openSession opens the engines of m (loop): the provider makes them and
// starts their programs in the background, ahead of the first moves (two
// legs for a bot match, one for a human match).
func (b *Bot) openSession(m *match) {
	if !m.modeOK || m.sess != nil {
		return
	}
	legs := 2
	if m.human {
		legs = 1
	}
	s, err := b.opts.Engine.Provider.Open(context.Background(), engines.MatchInfo{ID: m.id, Mode: m.mode, Human: m.human, Legs: legs})
	if err != nil {
		b.log.Warn("engine could not be opened for the match; its moves are fallbacks", "match", m.id, "err", err)
		return
	}
	m.sess = &matchSession{s: s, graceless: map[int]bool{}}
	b.sessions[m.id] = m.sess
}

// closeSession closes the engines of match id, once (loop): in the
// background, after their asks in flight; Run waits for it.
func (b *Bot) closeSession(id int64) {
	ms := b.sessions[id]
	if ms == nil {
		return
	}
	delete(b.sessions, id)
	b.closing.Add(1)
	go func() {
		defer b.closing.Done()
		b.closeEngines(ms)
	}()
}

// closeSessions closes the engines of every match not ended and waits for
// the closes begun earlier (when Run ends: no engine process outlives the
// bot).
func (b *Bot) closeSessions() {
	for id, ms := range b.sessions {
		delete(b.sessions, id)
		b.closeEngines(ms)
	}
	b.closing.Wait()
}

func (b *Bot) closeEngines(ms *matchSession) {
	if err := ms.s.Close(); err != nil {
		b.log.Warn("closing the match's engines", "err", err)
	}
}
