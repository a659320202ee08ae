package arena

import (
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// maxAutoMatches is how many automatic matches run or wait at once (the
// site keeps two rooms open).
const maxAutoMatches = 2

// autoMatch offers std matches, like the site, to online registered bots
// with auto-match on that are idle and not practising: the opponent is
// another such bot when there is one, else a built-in bot; the offered bot
// is bot_b. Called with mu held.
func (s *Server) autoMatch(now int64) {
	open := 0
	busy := map[int64]bool{}
	for _, m := range s.matches {
		if m.status == flipsight.MatchRunning || m.status == flipsight.MatchPending {
			busy[m.botA], busy[m.botB] = true, true
			if m.auto {
				open++
			}
		}
	}
	idle := func(b *bot) bool {
		return !b.builtin && b.autoMatch && !practice(b) && !busy[b.id] &&
			now >= b.autoOffUntil && b.modes[othello.Std] && s.online(b, now)
	}
	for _, b := range s.bots {
		if open >= maxAutoMatches {
			return
		}
		if !idle(b) {
			continue
		}
		var opp *bot
		for _, o := range s.bots {
			if o != b && idle(o) {
				opp = o
				break
			}
		}
		if opp == nil {
			for _, o := range s.bots {
				if o.builtin && o.modes[othello.Std] {
					opp = o
					break
				}
			}
		}
		if opp == nil {
			continue
		}
		if _, err := s.newChallenge(opp, b, othello.Std, true, now); err == nil {
			busy[opp.id], busy[b.id] = true, true
			open++
		}
	}
}
