package main

import (
	"context"
	"log/slog"
	"time"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// Names of the two sides in the arena.
const (
	botName   = "soakbot"
	houseName = "house"
)

// atOnce is how many matches the bot plays at a time.
const atOnce = 2

// settleFor is how long the matches in play when the play ends may take
// to finish (their clocks allow less).
const settleFor = 5 * time.Minute

// challenger keeps the bot's matches going, the modes in turn, and counts
// how they end.
type challenger struct {
	a     *arena.Server
	c     *counters
	modes []othello.Mode
	log   *slog.Logger

	next int
	live map[int64]othello.Mode
}

// newChallenger returns a challenger of the bot in a, with no match yet.
func newChallenger(a *arena.Server, c *counters, modes []othello.Mode, log *slog.Logger) *challenger {
	return &challenger{a: a, c: c, modes: modes, log: log, live: map[int64]othello.Mode{}}
}

// run challenges the bot until play is closed, then lets the matches in
// play end (up to settleFor, or until ctx ends) and counts them.
func (ch *challenger) run(ctx context.Context, play <-chan struct{}) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-play:
			deadline := time.Now().Add(settleFor)
			for len(ch.live) > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
				ch.settle()
				time.Sleep(500 * time.Millisecond)
			}
			return
		case <-t.C:
		}
		ch.settle()
		for len(ch.live) < atOnce {
			m := ch.modes[ch.next%len(ch.modes)]
			id, err := ch.a.Challenge(houseName, botName, m)
			if err != nil {
				break
			}
			ch.next++
			ch.live[id] = m
		}
	}
}

// settle counts the live matches that have ended.
func (ch *challenger) settle() {
	for id, mode := range ch.live {
		r, ok := ch.a.Result(id)
		if ok && !r.Ended {
			continue
		}
		delete(ch.live, id)
		ch.count(id, mode, r, ok)
	}
}

// count counts an ended match: its result r (ok false: the arena lost it)
// and its legs lost on time.
func (ch *challenger) count(id int64, mode othello.Mode, r arena.MatchResult, ok bool) {
	c, log := ch.c, ch.log
	c.playedIn(mode)
	if !ok {
		c.notByDiscs.Add(1)
		log.Error("match vanished", "match", id)
		return
	}
	const me = 1 // the house challenges: the bot is bot_b, participant 1
	if r.Status == flipsight.MatchFinished && r.FinishReason == flipsight.FinishDiscs {
		c.byDiscs.Add(1)
	} else {
		c.notByDiscs.Add(1)
		log.Error("match did not end by discs", "match", id, "mode", mode, "status", r.Status, "reason", r.FinishReason)
	}
	switch r.Winner {
	case -1:
		c.drawn.Add(1)
	case me:
		c.won.Add(1)
	default:
		c.defeats.Add(1)
		log.Warn("match lost", "match", id, "mode", mode, "totals", r.Totals, "reason", r.FinishReason)
	}
	m, _ := ch.a.MatchJSON(id)
	if m.State == nil {
		return
	}
	for i, l := range m.State.Legs {
		if l.Status != flipsight.LegTimeout {
			continue
		}
		mover := l.BlackParticipant
		if l.Turn == flipsight.White {
			mover = 1 - mover
		}
		if mover == me {
			c.myTimeouts.Add(1)
			log.Error("the bot lost a leg on time", "match", id, "leg", i, "mode", mode)
		} else {
			c.oppTimeouts.Add(1)
		}
	}
}
