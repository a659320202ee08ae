package bot

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// Starter is implemented by engines that run a process which can be
// started ahead of its first move (the external adapters): the bot calls
// Start when it accepts (or picks up) a match, so that the engine's start-up
// is not taken from the first move's clock.
type Starter interface {
	Start() error
}

// ModeStarter is Starter for engines that play each mode with a different
// engine (the appliance's): StartFor starts only what mode needs.
type ModeStarter interface {
	StartFor(mode othello.Mode) error
}

// engineSet makes and closes the bot's engine instances by the factory's
// scope (per match, knowing the match, with NewMatch), starts them when a
// match is accepted, and keeps per-leg engines
// warm between matches (up to warm of them: two legs per match the bot
// plays at once), so that the next match's first moves do not pay their
// start-up either. Safe for concurrent use.
type engineSet struct {
	f    EngineFactory
	log  *slog.Logger
	warm int

	closing  sync.WaitGroup // closes started in the background
	starting sync.WaitGroup // starts in the background

	mu       sync.Mutex
	busy     map[engines.Engine]*engineUse // background asks in flight, waited for by close
	shared   engines.Engine
	perMatch map[int64]engines.Engine
	infos    map[int64]MatchInfo // the matches prepared and not released (NewMatch)
	perLeg   map[legKey]engines.Engine
	idle     []engines.Engine // per-leg engines of ended matches, still running
	// graceless holds the legs whose engine once stopped without its best
	// move: the bot does not wait for their engines past their time again
	// in that match (a replacement after a discard included).
	graceless map[legKey]bool
}

func newEngineSet(f EngineFactory, log *slog.Logger, warm int) *engineSet {
	return &engineSet{f: f, log: log, warm: warm, perMatch: map[int64]engines.Engine{}, infos: map[int64]MatchInfo{}, perLeg: map[legKey]engines.Engine{},
		busy: map[engines.Engine]*engineUse{}, graceless: map[legKey]bool{}}
}

// engineUse counts the background asks of one engine.
type engineUse struct {
	n  int
	wg sync.WaitGroup
}

// hold marks e as in use by a background ask until the returned function
// is called: closing e waits for it, so that a forced turn sent to the
// engine just before its match ends still reaches it.
func (s *engineSet) hold(e engines.Engine) (release func()) {
	s.mu.Lock()
	u := s.busy[e]
	if u == nil {
		u = &engineUse{}
		s.busy[e] = u
	}
	u.n++
	u.wg.Add(1)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if u.n--; u.n == 0 && s.busy[e] == u {
			delete(s.busy, e)
		}
		s.mu.Unlock()
		u.wg.Done()
	}
}

// scope is how many engines the set makes: one per match with NewMatch,
// else the factory's Scope.
func (s *engineSet) scope() Scope {
	if s.f.NewMatch != nil {
		return PerMatch
	}
	return s.f.Scope
}

// newEngine makes an engine for the legs of key's match (s.mu held): with
// NewMatch, for the match as prepared (only its id when it was not).
func (s *engineSet) newEngine(key legKey) (engines.Engine, error) {
	if s.f.NewMatch == nil {
		return s.f.New()
	}
	info, ok := s.infos[key.match]
	if !ok {
		info = MatchInfo{ID: key.match}
	}
	return s.f.NewMatch(info)
}

// get returns the engine for a leg, making it on first use (a warm one
// when there is one).
func (s *engineSet) get(key legKey) (engines.Engine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var (
		e   engines.Engine
		ok  bool
		put func(engines.Engine)
	)
	switch s.scope() {
	case Shared:
		e, ok = s.shared, s.shared != nil
		put = func(n engines.Engine) { s.shared = n }
	case PerMatch:
		e, ok = s.perMatch[key.match]
		put = func(n engines.Engine) { s.perMatch[key.match] = n }
	default:
		e, ok = s.perLeg[key]
		put = func(n engines.Engine) { s.perLeg[key] = n }
		if !ok && len(s.idle) > 0 {
			e, ok = s.idle[len(s.idle)-1], true
			s.idle = s.idle[:len(s.idle)-1]
			put(e)
		}
	}
	if ok {
		return e, nil
	}
	e, err := s.newEngine(key)
	if err != nil {
		return nil, fmt.Errorf("start engine for match %d leg %d: %w", key.match, key.leg, err)
	}
	put(e)
	return e, nil
}

// graceFor reports whether the bot waits a moment past its time for the
// best move so far of key's engine (until one of them stopped without one
// in this match).
func (s *engineSet) graceFor(key legKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.graceless[key]
}

// noGrace notes that key's engine stopped without a move when its time was
// up.
func (s *engineSet) noGrace(key legKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.graceless[key] = true
}

// current returns the engine a leg's next move would get, if one is made
// (after a discard, the replacement).
func (s *engineSet) current(key legKey) (engines.Engine, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.scope() {
	case Shared:
		return s.shared, s.shared != nil
	case PerMatch:
		e, ok := s.perMatch[key.match]
		return e, ok
	}
	e, ok := s.perLeg[key]
	return e, ok
}

// prewarm makes and starts, in the background, the per-leg engines of the
// first match (two legs) before any match is offered, and keeps them warm:
// a program that takes seconds to load its tables (Egaroucid, Edax) is ready
// by the first move instead of costing the first match its first moves.
// Only per-leg engines are kept warm (see releaseMatch); std is the mode
// they are started for, the one such engines play.
func (s *engineSet) prewarm() {
	if s.scope() != PerLeg {
		return
	}
	for i := range min(2, s.warm) {
		e, err := s.f.New()
		if err != nil {
			s.log.Warn("engine could not be made ahead of the first match", "err", err)
			return
		}
		s.mu.Lock()
		s.idle = append(s.idle, e)
		s.mu.Unlock()
		s.startLater(e, legKey{0, i}, othello.Std)
	}
}

// prepare makes the engines of a match's legs and starts their processes
// in the background (loop: it does not wait for them). With NewMatch, the
// match's engine is made for m.
func (s *engineSet) prepare(m MatchInfo) {
	match, mode := m.ID, m.Mode
	if s.f.NewMatch != nil {
		s.mu.Lock()
		s.infos[match] = m
		s.mu.Unlock()
	}
	if s.scope() == Shared {
		return
	}
	for leg := 0; leg < m.Legs; leg++ {
		e, err := s.get(legKey{match, leg})
		if err != nil {
			s.log.Warn("engine could not be made ahead of the match", "match", match, "leg", leg, "err", err)
			return
		}
		s.startLater(e, legKey{match, leg}, mode)
		if s.scope() == PerMatch {
			return // one engine for both legs
		}
	}
}

// startLater starts e's process in the background, when it has one to
// start (a Starter or ModeStarter); closeAll waits for it.
func (s *engineSet) startLater(e engines.Engine, key legKey, mode othello.Mode) {
	if _, ok := e.(ModeStarter); !ok {
		if _, ok := e.(Starter); !ok {
			return
		}
	}
	s.starting.Add(1)
	go func() {
		defer s.starting.Done()
		var err error
		switch st := e.(type) {
		case ModeStarter:
			err = st.StartFor(mode)
		case Starter:
			err = st.Start()
		}
		if err != nil {
			s.log.Warn("engine did not start ahead of its move; the move starts it", "match", key.match, "leg", key.leg, "err", err)
		}
	}()
}

// discard closes the engine of a leg after it failed, and makes and starts
// its replacement in the background, so that the next move finds a fresh
// engine already starting instead of paying its start-up from its budget
// (not for a shared engine). A match's engine (NewMatch) is replaced before
// it is closed. When e is no longer the leg's engine (its
// match was released meanwhile) nothing is replaced, and e is closed only
// if it was kept warm: else the release closed it already, or another leg
// took it over.
func (s *engineSet) discard(key legKey, e engines.Engine, mode othello.Mode) {
	s.mu.Lock()
	current := false
	var replaced engines.Engine
	switch s.scope() {
	case Shared:
		s.mu.Unlock()
		return
	case PerMatch:
		if s.perMatch[key.match] == e {
			delete(s.perMatch, key.match)
			current = true
			if s.f.NewMatch != nil {
				// The replacement first: the match's last Close is its end.
				n, err := s.newEngine(key)
				if err != nil {
					s.log.Warn("replacement engine could not be made; the next move tries again", "match", key.match, "leg", key.leg, "err", err)
				} else {
					s.perMatch[key.match], replaced = n, n
				}
			}
		}
	default:
		if s.perLeg[key] == e {
			delete(s.perLeg, key)
			current = true
		}
	}
	warm := false
	if !current {
		if i := slices.Index(s.idle, e); i >= 0 {
			s.idle, warm = slices.Delete(s.idle, i, i+1), true
		}
	}
	s.mu.Unlock()
	if current || warm {
		s.closeLater(e)
	}
	if !current || s.f.NewMatch != nil {
		if replaced != nil {
			s.startLater(replaced, key, mode)
		}
		return
	}
	n, err := s.get(key)
	if err != nil {
		s.log.Warn("replacement engine could not be made; the next move tries again", "match", key.match, "leg", key.leg, "err", err)
		return
	}
	s.startLater(n, key, mode)
}

// closeLater closes e in the background; closeAll waits for it.
func (s *engineSet) closeLater(e engines.Engine) {
	s.closing.Add(1)
	go func() {
		defer s.closing.Done()
		s.close(e)
	}()
}

// releaseMatch lets go of the engines of a match that has ended (or was
// never accepted): per-leg engines are kept warm for the next match while
// there is room, the others are closed.
func (s *engineSet) releaseMatch(id int64) {
	s.mu.Lock()
	var list []engines.Engine
	delete(s.infos, id)
	for k := range s.graceless {
		if k.match == id {
			delete(s.graceless, k)
		}
	}
	if e, ok := s.perMatch[id]; ok {
		list = append(list, e)
		delete(s.perMatch, id)
	}
	for k, e := range s.perLeg {
		if k.match != id {
			continue
		}
		delete(s.perLeg, k)
		if len(s.idle) < s.warm {
			s.idle = append(s.idle, e)
		} else {
			list = append(list, e)
		}
	}
	s.mu.Unlock()
	for _, e := range list {
		s.closeLater(e)
	}
}

// closeAll closes every engine and waits for the starts and closes begun
// earlier (when Run ends: no engine process outlives the bot).
func (s *engineSet) closeAll() {
	s.mu.Lock()
	list := make([]engines.Engine, 0, len(s.perMatch)+len(s.perLeg)+len(s.idle)+1)
	if s.shared != nil {
		list = append(list, s.shared)
		s.shared = nil
	}
	for k, e := range s.perMatch {
		list = append(list, e)
		delete(s.perMatch, k)
	}
	clear(s.infos)
	clear(s.graceless)
	for k, e := range s.perLeg {
		list = append(list, e)
		delete(s.perLeg, k)
	}
	list = append(list, s.idle...)
	s.idle = nil
	s.mu.Unlock()
	for _, e := range list {
		s.close(e)
	}
	s.starting.Wait()
	s.closing.Wait()
}

// close closes e once its background asks are done (each is bounded by
// its own deadline and by the bot's abort).
func (s *engineSet) close(e engines.Engine) {
	s.mu.Lock()
	u := s.busy[e]
	s.mu.Unlock()
	if u != nil {
		u.wg.Wait()
	}
	if err := e.Close(); err != nil {
		s.log.Warn("closing engine", "engine", e.Name(), "err", err)
	}

}
