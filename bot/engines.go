package bot

import (
	"fmt"
	"log/slog"
	"sync"

	"flipbot.dev/flipbot/engines"
)

// engineSet makes and closes the bot's engine instances by the factory's
// scope. Safe for concurrent use.
type engineSet struct {
	f   EngineFactory
	log *slog.Logger

	closing sync.WaitGroup // closes started in the background

	mu       sync.Mutex
	shared   engines.Engine
	perMatch map[int64]engines.Engine
	perLeg   map[legKey]engines.Engine
}

func newEngineSet(f EngineFactory, log *slog.Logger) *engineSet {
	return &engineSet{f: f, log: log, perMatch: map[int64]engines.Engine{}, perLeg: map[legKey]engines.Engine{}}
}

// get returns the engine for a leg, making it on first use.
func (s *engineSet) get(key legKey) (engines.Engine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var (
		e   engines.Engine
		ok  bool
		put func(engines.Engine)
	)
	switch s.f.Scope {
	case Shared:
		e, ok = s.shared, s.shared != nil
		put = func(n engines.Engine) { s.shared = n }
	case PerMatch:
		e, ok = s.perMatch[key.match]
		put = func(n engines.Engine) { s.perMatch[key.match] = n }
	default:
		e, ok = s.perLeg[key]
		put = func(n engines.Engine) { s.perLeg[key] = n }
	}
	if ok {
		return e, nil
	}
	e, err := s.f.New()
	if err != nil {
		return nil, fmt.Errorf("start engine for match %d leg %d: %w", key.match, key.leg, err)
	}
	put(e)
	return e, nil
}

// discard closes the engine of a leg after it failed, so that the next
// move starts a fresh one (not for a shared engine).
func (s *engineSet) discard(key legKey, e engines.Engine) {
	s.mu.Lock()
	switch s.f.Scope {
	case Shared:
		s.mu.Unlock()
		return
	case PerMatch:
		if s.perMatch[key.match] == e {
			delete(s.perMatch, key.match)
		}
	default:
		if s.perLeg[key] == e {
			delete(s.perLeg, key)
		}
	}
	s.mu.Unlock()
	s.closeLater(e)
}

// closeLater closes e in the background; closeAll waits for it.
func (s *engineSet) closeLater(e engines.Engine) {
	s.closing.Add(1)
	go func() {
		defer s.closing.Done()
		s.close(e)
	}()
}

// releaseMatch closes the engines of a match that has ended.
func (s *engineSet) releaseMatch(id int64, _ *sync.WaitGroup) {
	s.mu.Lock()
	var list []engines.Engine
	if e, ok := s.perMatch[id]; ok {
		list = append(list, e)
		delete(s.perMatch, id)
	}
	for k, e := range s.perLeg {
		if k.match == id {
			list = append(list, e)
			delete(s.perLeg, k)
		}
	}
	s.mu.Unlock()
	for _, e := range list {
		s.closeLater(e)
	}
}

// closeAll closes every engine and waits for the closes started earlier
// (when Run ends: no engine process outlives the bot).
func (s *engineSet) closeAll() {
	s.mu.Lock()
	list := make([]engines.Engine, 0, len(s.perMatch)+len(s.perLeg)+1)
	if s.shared != nil {
		list = append(list, s.shared)
		s.shared = nil
	}
	for k, e := range s.perMatch {
		list = append(list, e)
		delete(s.perMatch, k)
	}
	for k, e := range s.perLeg {
		list = append(list, e)
		delete(s.perLeg, k)
	}
	s.mu.Unlock()
	for _, e := range list {
		s.close(e)
	}
	s.closing.Wait()
}

func (s *engineSet) close(e engines.Engine) {
	if err := e.Close(); err != nil {
		s.log.Warn("closing engine", "engine", e.Name(), "err", err)
	}
}
