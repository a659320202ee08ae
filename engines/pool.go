package engines

import (
	"errors"
	"log/slog"
	"sync"
)

// ErrPoolFull is Pool.Take's error when fewer engines than asked for fit
// under the pool's bound.
var ErrPoolFull = errors.New("every engine slot is taken")

// PoolConfig configures a [Pool].
type PoolConfig struct {
	// New makes one engine (not started: the taker starts it).
	New func() (Engine, error)
	// Max bounds the engines made and not closed, warm and taken (0: no
	// bound). The appliance sizes it to the device's memory
	// (engines/sizing).
	Max int
	// Keep bounds the engines kept warm between matches (0: Max).
	Keep int
	// Logger receives the closes' errors (discarded when nil).
	Logger *slog.Logger
}

// Pool keeps started engine programs warm between matches, so that the
// next match does not wait for their start-up (a program that loads its
// tables for seconds: Egaroucid, Edax): a taker gets a warm engine first,
// a new one while the bound allows, and gives it back running when its
// match ends. The one warm pool of the house: the connector's per-leg
// engines ([PerLeg]) and the appliance's Egaroucid (engines/egaroucid)
// use it. Safe for concurrent use.
type Pool struct {
	cfg PoolConfig
	log *slog.Logger

	mu      sync.Mutex
	all     map[Engine]bool // made and not closed: warm and taken
	idle    []Engine        // warm: running, taken by no one
	closed  bool
	warming sync.WaitGroup // Prewarm's starts
}

// NewPool returns an empty pool. Close it when done: it closes every
// engine it made.
func NewPool(cfg PoolConfig) *Pool {
	if cfg.Keep <= 0 {
		cfg.Keep = cfg.Max
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Pool{cfg: cfg, log: log, all: map[Engine]bool{}}
}

// get takes one engine (PerLeg's sessions).
func (p *Pool) get() (Engine, error) {
	list, err := p.Take(1)
	if err != nil {
		return nil, err
	}
	return list[0], nil
}

// Take returns n engines, warm ones first, new ones made while the bound
// allows; none (ErrPoolFull) when fewer than n fit, or the error of
// making one.
func (p *Pool) Take(n int) ([]Engine, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrPoolFull
	}
	if p.cfg.Max > 0 && p.cfg.Max-(len(p.all)-len(p.idle)) < n {
		return nil, ErrPoolFull
	}
	list := make([]Engine, 0, n)
	for len(list) < n && len(p.idle) > 0 {
		list = append(list, p.idle[len(p.idle)-1])
		p.idle = p.idle[:len(p.idle)-1]
	}
	for len(list) < n {
		e, err := p.cfg.New()
		if err != nil {
			p.idle = append(p.idle, list...)
			return nil, err
		}
		p.all[e] = true
		list = append(list, e)
	}
	return list, nil
}

// Put gives e back, still running: kept warm while there is room, else
// closed. An engine the pool no longer holds (closed with it) is left
// alone.
func (p *Pool) Put(e Engine) {
	p.mu.Lock()
	if !p.all[e] {
		p.mu.Unlock()
		return
	}
	if !p.closed && len(p.idle) < p.cfg.Keep {
		p.idle = append(p.idle, e)
		p.mu.Unlock()
		return
	}
	delete(p.all, e)
	p.mu.Unlock()
	p.close(e)
}

// Drop closes e (it failed) and frees its slot.
func (p *Pool) Drop(e Engine) {
	p.mu.Lock()
	held := p.all[e]
	delete(p.all, e)
	p.mu.Unlock()
	if held {
		p.close(e)
	}
}

// Prewarm makes up to n engines ahead of the first match (no more than
// Keep kept warm) and starts them in the background.
func (p *Pool) Prewarm(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for range n {
		if p.closed || len(p.idle) >= p.cfg.Keep || (p.cfg.Max > 0 && len(p.all) >= p.cfg.Max) {
			return
		}
		e, err := p.cfg.New()
		if err != nil {
			p.log.Warn("engine could not be made ahead of the first match", "err", err)
			return
		}
		p.all[e] = true
		p.idle = append(p.idle, e)
		if st, ok := e.(Starter); ok {
			p.warming.Add(1)
			go func() {
				defer p.warming.Done()
				if err := st.Start(); err != nil {
					p.log.Warn("engine did not start ahead of the first match; its first move starts it", "err", err)
				}
			}()
		}
	}
}

// Counts returns the engines made and not closed, and those warm.
func (p *Pool) Counts() (live, warm int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.all), len(p.idle)
}

// Close closes every engine the pool made, warm and taken (their takers'
// asks then fail), and every one given back later; nothing is taken any
// more.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	list := make([]Engine, 0, len(p.all))
	for e := range p.all {
		list = append(list, e)
	}
	clear(p.all)
	p.idle = nil
	p.mu.Unlock()
	p.warming.Wait()
	for _, e := range list {
		p.close(e)
	}
	return nil
}

func (p *Pool) close(e Engine) {
	if err := e.Close(); err != nil {
		p.log.Warn("closing engine", "engine", e.Name(), "err", err)
	}
}
