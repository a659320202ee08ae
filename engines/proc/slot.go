package proc

import (
	"context"
	"errors"
	"sync"
)

// ErrClosed is returned by a Slot, and by the adapters built on it, after
// Close.
var ErrClosed = errors.New("engine is closed")

// Slot keeps the one process that an engine adapter talks to: it starts
// the process on first use and again after it has died (counting a crash),
// lets one move at a time talk to it, and stops it on Close. The JSON-line,
// NBoard and Egaroucid adapters share it.
type Slot struct {
	start func() (*Process, error)
	turn  chan struct{} // held by the move talking to the process

	mu      sync.Mutex // guards the fields below
	p       *Process
	closed  bool
	starts  int
	crashes int
}

// NewSlot returns a slot whose processes are started by start. start may
// talk to the new process (a handshake); when it returns a process together
// with an error, the slot kills that process and counts a crash. start is
// called with the slot's lock held: it must not call the slot.
func NewSlot(start func() (*Process, error)) *Slot {
	return &Slot{start: start, turn: make(chan struct{}, 1)}
}

// Acquire waits for the turn to talk to the process; it reports false when
// ctx ends first. A true answer must be followed by Release.
func (s *Slot) Acquire(ctx context.Context) bool {
	select {
	case s.turn <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// Release gives the turn back.
func (s *Slot) Release() { <-s.turn }

// Process returns the running process, starting one when there is none or
// the last one has exited; fresh reports a process started by this call.
// Call it holding the turn.
func (s *Slot) Process() (p *Process, fresh bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false, ErrClosed
	}
	if s.p != nil && !s.p.Exited() {
		return s.p, false, nil
	}
	if s.p != nil {
		s.crashes++
		s.p.Kill() // it has exited: this only reaps it and frees its pipes
		s.p = nil
	}
	p, err = s.start()
	if p != nil {
		s.starts++
	}
	if err != nil {
		if p != nil {
			s.crashes++
			p.Kill()
		}
		return nil, false, err
	}
	s.p = p
	return p, true, nil
}

// Retire kills p and forgets it if it is still the slot's process; crashed
// counts it as an end nobody asked for.
func (s *Slot) Retire(p *Process, crashed bool) {
	s.mu.Lock()
	if s.p == p {
		s.p = nil
		if crashed {
			s.crashes++
		}
	}
	s.mu.Unlock()
	p.Kill()
}

// Start starts the process now, if it is not running, instead of at the
// next move, so that its start-up time is not taken from a move's budget.
// It does nothing while a move talks to the process.
func (s *Slot) Start() error {
	select {
	case s.turn <- struct{}{}:
		defer s.Release()
	default:
		return nil
	}
	_, _, err := s.Process()
	return err
}

// Close stops the process and its descendants ([Process.Stop]); Process
// returns ErrClosed afterwards.
func (s *Slot) Close() error {
	s.mu.Lock()
	p := s.p
	s.p = nil
	s.closed = true
	s.mu.Unlock()
	if p != nil {
		p.Stop()
	}
	return nil
}

// Stats returns how many processes were started and how many ended without
// being asked to.
func (s *Slot) Stats() (starts, crashes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.starts, s.crashes
}

// Running reports whether the slot holds a process that has not exited.
func (s *Slot) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.p != nil && !s.p.Exited()
}
