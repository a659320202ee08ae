package egaroucid

import (
	"context"
	"errors"
	"sync"
	"time"

	"flipbot.dev/flipbot/engines"
)

// session is the engines.Session of one std match on a Pool: its legs'
// Egaroucid engines (one per leg), or none when the match plays std with
// the fallback's session (no pair was free, or Egaroucid is refused).
type session struct {
	p       *Pool
	m       engines.MatchInfo
	fb      engines.Session
	engines []Instance // nil: the fallback plays
	busy    bool       // the fallback plays because every pair was taken (counted in builtins)

	mu     sync.Mutex
	closed bool
	asks   sync.WaitGroup // asks in flight and the start at Open
}

// engine returns leg's Egaroucid, or nil when the fallback plays it.
func (s *session) engine(leg int) Instance {
	if len(s.engines) == 0 || s.p.Refused() != nil || s.p.isClosed() {
		return nil
	}
	return s.engines[(leg&1)%len(s.engines)]
}

// begin counts one ask, unless the session is closed.
func (s *session) begin() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return engines.ErrSessionClosed
	}
	s.asks.Add(1)
	return nil
}

// Move asks leg's Egaroucid. A move whose Egaroucid was refused for its
// memory (then or meanwhile) is played by the fallback in the time left,
// so that no move is lost for it.
func (s *session) Move(ctx context.Context, leg int, req engines.Request) (engines.Result, error) {
	if err := s.begin(); err != nil {
		return engines.Result{}, err
	}
	defer s.asks.Done()
	start := time.Now()
	eg := s.engine(leg)
	if eg == nil {
		return s.fb.Move(ctx, leg, req)
	}
	res, err := eg.Move(ctx, req)
	if err == nil || ctx.Err() != nil {
		return res, err
	}
	if errors.Is(err, ErrOverShare) {
		s.p.Refuse(err)
	}
	if s.p.Refused() == nil {
		return res, err
	}
	spent := time.Since(start)
	req.Budget -= spent
	req.Remaining -= spent
	if req.Budget <= 0 {
		return res, err
	}
	return s.fb.Move(ctx, leg, req)
}

// Ponder is the fallback's for the legs it plays; Egaroucid does not
// ponder.
func (s *session) Ponder(ctx context.Context, leg int, req engines.PonderRequest) error {
	if err := s.begin(); err != nil {
		return err
	}
	defer s.asks.Done()
	if s.engine(leg) != nil {
		return engines.ErrNoPonder
	}
	return s.fb.Ponder(ctx, leg, req)
}

// Replace is the fallback's for the legs it plays. A failed Egaroucid
// stays the leg's: its adapter restarts a process that died or overran at
// its next move, and the match keeps its pair to its end.
func (s *session) Replace(leg int) {
	if s.engine(leg) == nil {
		s.fb.Replace(leg)
	}
}

// Restart is the fallback's for the legs it plays.
func (s *session) Restart(leg int) {
	if s.engine(leg) == nil {
		s.fb.Restart(leg)
	}
}

// Close gives the match's Egaroucid engines back to the pool, still
// running, once the asks in flight are done, and closes the fallback's
// session.
func (s *session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.asks.Wait()
	err := s.fb.Close()
	s.p.release(s)
	return err
}
