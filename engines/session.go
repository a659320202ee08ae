package engines

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"flipbot.dev/flipbot/engines/othello"
)

// MatchInfo describes the match a [Session] plays.
type MatchInfo struct {
	// ID is the match's FlipSight id.
	ID int64
	// Mode is the match's game mode.
	Mode othello.Mode
	// Human is true for a human match (one leg).
	Human bool
	// Legs is how many legs the player plays: 2 for a bot match, 1 for a
	// human match.
	Legs int
}

// Provider opens the engines of one match: a player opens a [Session]
// when it accepts (or picks up) a match and closes it, once, when the
// match ends. Open must return quickly: the programs a session runs are
// started in the background. Safe for concurrent use.
type Provider interface {
	Open(ctx context.Context, m MatchInfo) (Session, error)
}

// Session is the engines of one match, from its acceptance to its end:
// which program plays which leg, its replacement after a failure and its
// start-up are the session's business. Safe for concurrent use; Close is
// called once, and waits for the asks in flight (each bounded by its
// context).
type Session interface {
	// Move asks the engine of leg for req's move.
	Move(ctx context.Context, leg int, req Request) (Result, error)
	// Ponder thinks on the opponent's time for leg (ErrNoPonder when the
	// leg's engine cannot).
	Ponder(ctx context.Context, leg int, req PonderRequest) error
	// Replace lets go of leg's engine after it failed (an error, or no
	// answer in time): it is closed once its asks are done, and a fresh
	// one is started for the next move. An engine shared beyond the match
	// is kept.
	Replace(leg int)
	// Restart starts leg's engine again ahead of its next move (its
	// process died and the adapter starts a new one at its next request).
	Restart(leg int)
	// Close ends the session: its engines are closed or given back warm.
	Close() error
}

// Starter is implemented by engines that run a process which can be
// started ahead of its first move (the external adapters).
type Starter interface {
	Start() error
}

// Prewarmer is implemented by providers that can make and start the
// programs of the first match before any match is offered (a player calls
// it as it starts).
type Prewarmer interface {
	Prewarm()
}

// ErrNoPonder is Session.Ponder's error when the leg's engine cannot
// ponder.
var ErrNoPonder = errors.New("engine cannot ponder")

// ErrSessionClosed is the error of an ask to a closed session.
var ErrSessionClosed = errors.New("engine session closed")

// Shared returns a provider whose sessions all play with e (the built-in
// engine, which shares its cores among concurrent searches): e is never
// replaced, and closing a session leaves it open (its owner closes it).
func Shared(e Engine) Provider {
	return sharedProvider{e}
}

type sharedProvider struct{ e Engine }

func (p sharedProvider) Open(context.Context, MatchInfo) (Session, error) {
	s := newSession(MatchInfo{}, nil, true)
	s.fixed = p.e
	return s, nil
}

// PerMatch returns a provider whose sessions make one engine with
// newEngine for both legs of their match (the spec's JSON-line engines:
// one process per match); Close closes it. Failures to make it ahead of
// the match are logged to log; the next move tries again.
func PerMatch(newEngine func() (Engine, error), log *slog.Logger) Provider {
	return perMatch{newEngine: newEngine, log: log}
}

type perMatch struct {
	newEngine func() (Engine, error)
	log       *slog.Logger
}

func (p perMatch) Open(_ context.Context, m MatchInfo) (Session, error) {
	s := newSession(m, p.log, true)
	s.make = p.newEngine
	s.give = closeEngine(p.log)
	s.drop = s.give
	s.prepare(1)
	return s, nil
}

// PerLeg returns a provider whose sessions play each leg with its own
// engine taken from pool (a warm one when there is one, NBoard, Edax,
// Egaroucid), given back to it, still running, when the match ends.
func PerLeg(pool *Pool) Provider { return perLeg{pool} }

type perLeg struct{ pool *Pool }

func (p perLeg) Open(_ context.Context, m MatchInfo) (Session, error) {
	s := newSession(m, p.pool.log, false)
	s.make = p.pool.get
	s.give = p.pool.Put
	s.drop = p.pool.Drop
	s.prepare(m.Legs)
	return s, nil
}

// Prewarm makes and starts the engines of the first match (two legs), in
// the background.
func (p perLeg) Prewarm() { p.pool.Prewarm(2) }

// session is the generic Session of Shared, PerMatch and PerLeg.
type session struct {
	m      MatchInfo
	log    *slog.Logger
	shared bool   // one engine for every leg
	fixed  Engine // Shared: the one engine, never replaced nor closed

	make func() (Engine, error) // a fresh engine for a leg
	give func(Engine)           // at the end: back to the pool, or closed
	drop func(Engine)           // after a failure: closed

	mu     sync.Mutex
	legs   map[int]Engine // by leg (leg 0 only when shared)
	last   map[int]Engine // the engine each leg was last asked
	busy   map[Engine]*sync.WaitGroup
	closed bool
	bg     sync.WaitGroup // starts and closes in the background
}

func newSession(m MatchInfo, log *slog.Logger, shared bool) *session {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &session{m: m, log: log, shared: shared, legs: map[int]Engine{}, last: map[int]Engine{}, busy: map[Engine]*sync.WaitGroup{}}
}

// slot is the index of leg's engine in s.legs.
func (s *session) slot(leg int) int {
	if s.shared {
		return 0
	}
	return leg
}

// prepare makes the engines of n legs (one when shared) and starts them
// in the background.
func (s *session) prepare(n int) {
	if s.shared {
		n = min(n, 1)
	}
	for leg := range n {
		s.mu.Lock()
		e, err := s.engine(leg)
		s.mu.Unlock()
		if err != nil {
			s.log.Warn("engine could not be made ahead of the match", "match", s.m.ID, "leg", leg, "err", err)
			return
		}
		s.startLater(e, leg)
	}
}

// engine returns leg's engine, made on first use (s.mu held).
func (s *session) engine(leg int) (Engine, error) {
	if s.fixed != nil {
		return s.fixed, nil
	}
	if s.closed {
		return nil, ErrSessionClosed
	}
	i := s.slot(leg)
	if e := s.legs[i]; e != nil {
		return e, nil
	}
	e, err := s.make()
	if err != nil {
		return nil, fmt.Errorf("start engine for match %d leg %d: %w", s.m.ID, leg, err)
	}
	s.legs[i] = e
	return e, nil
}

// acquire returns leg's engine held by one ask until done is called.
func (s *session) acquire(leg int) (e Engine, done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, ErrSessionClosed
	}
	if e, err = s.engine(leg); err != nil {
		return nil, nil, err
	}
	s.last[leg] = e
	wg := s.busy[e]
	if wg == nil {
		wg = &sync.WaitGroup{}
		s.busy[e] = wg
	}
	wg.Add(1)
	return e, wg.Done, nil
}

// current returns the engine leg's next ask would get, if made.
func (s *session) current(leg int) Engine {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fixed != nil {
		return s.fixed
	}
	return s.legs[s.slot(leg)]
}

// Move asks leg's engine. When it fails after the match's other leg had
// the engine they share replaced under this request, the request goes to
// the replacement (the spec's every own turn needs it) while ctx lasts.
func (s *session) Move(ctx context.Context, leg int, req Request) (Result, error) {
	for {
		e, done, err := s.acquire(leg)
		if err != nil {
			return Result{}, err
		}
		res, err := e.Move(ctx, req)
		done()
		if err == nil || ctx.Err() != nil || errors.Is(err, ErrNotReady) {
			return res, err
		}
		if n := s.current(leg); n == nil || n == e {
			return res, err
		}
		s.log.Info("engine replaced under this request; asking the replacement", "match", s.m.ID, "leg", leg, "err", err)
	}
}

// Ponder implements Session.
func (s *session) Ponder(ctx context.Context, leg int, req PonderRequest) error {
	e, done, err := s.acquire(leg)
	if err != nil {
		return err
	}
	defer done()
	p, ok := e.(Ponderer)
	if !ok {
		return ErrNoPonder
	}
	return p.Ponder(ctx, req)
}

// Replace implements Session: leg's last asked engine, when it is still
// the leg's (the other leg may have replaced the engine they share
// already), is closed once its asks are done, and its replacement made
// and started in the background.
func (s *session) Replace(leg int) {
	s.mu.Lock()
	i := s.slot(leg)
	e := s.last[leg]
	if s.fixed != nil || s.closed || e == nil || s.legs[i] != e {
		s.mu.Unlock()
		return
	}
	delete(s.legs, i)
	wg := s.busy[e]
	delete(s.busy, e)
	n, err := s.engine(leg)
	s.mu.Unlock()
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		if wg != nil {
			wg.Wait()
		}
		s.drop(e)
	}()
	if err != nil {
		s.log.Warn("replacement engine could not be made; the next move tries again", "match", s.m.ID, "leg", leg, "err", err)
		return
	}
	s.startLater(n, leg)
}

// Restart implements Session.
func (s *session) Restart(leg int) {
	if e := s.current(leg); e != nil {
		s.startLater(e, leg)
	}
}

// startLater starts e's process in the background when it has one.
func (s *session) startLater(e Engine, leg int) {
	st, ok := e.(Starter)
	if !ok {
		return
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		if err := st.Start(); err != nil {
			s.log.Warn("engine did not start ahead of its move; the move starts it", "match", s.m.ID, "leg", leg, "err", err)
		}
	}()
}

// Close implements Session: once the asks in flight are done, the engines
// are given back (kept warm by a pool) or closed, and the starts and
// closes begun in the background are waited for.
func (s *session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	var list []Engine
	for _, e := range s.legs {
		list = append(list, e)
	}
	clear(s.legs)
	var waits []*sync.WaitGroup
	for _, wg := range s.busy {
		waits = append(waits, wg)
	}
	s.mu.Unlock()
	for _, wg := range waits {
		wg.Wait()
	}
	s.bg.Wait()
	for _, e := range list {
		s.give(e)
	}
	return nil
}

// closeEngine returns a func that closes an engine, logging its error.
func closeEngine(log *slog.Logger) func(Engine) {
	return func(e Engine) {
		if err := e.Close(); err != nil && log != nil {
			log.Warn("closing engine", "engine", e.Name(), "err", err)
		}
	}
}
