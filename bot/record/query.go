package record

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"flipbot.dev/flipbot/engines/othello"
)

// MaxOpponentFilter is the longest opponent text a [Filter] made by
// [ParseFilter] keeps, in bytes.
const MaxOpponentFilter = 64

// Filter selects games; empty fields match everything. The appliance's
// games pages and `flipbot games` filter with it.
type Filter struct {
	// Mode is a game mode name (std, anti, grand, octagon, reversi).
	Mode string
	// Result matches Game.Result (the leg from the bot's side) or, for
	// "aborted", the match result.
	Result string
	// Opponent matches a substring of the opponent's name, case-insensitive.
	Opponent string
}

// ParseFilter makes a Filter from what a user typed (a page's query, a
// command's flags); empty values select everything. mode must name a game
// mode; result must be win, loss, draw or aborted; opponent is trimmed,
// and cut to MaxOpponentFilter bytes (at a character boundary, trimmed
// again) when longer. It returns the filter and, when a value was refused or cut, an
// error naming each such value: the filter then has the refused fields
// empty and the opponent cut, so that a page can show the rest.
func ParseFilter(mode, result, opponent string) (Filter, error) {
	f := Filter{Mode: mode, Result: result, Opponent: strings.TrimSpace(opponent)}
	var errs []error
	if f.Mode != "" {
		if _, err := othello.ParseMode(f.Mode); err != nil {
			errs = append(errs, fmt.Errorf("mode %q: want std, anti, grand, octagon or reversi", f.Mode))
			f.Mode = ""
		}
	}
	switch f.Result {
	case "", Win, Loss, Draw, Aborted:
	default:
		errs = append(errs, fmt.Errorf("result %q: want %s, %s, %s or %s", f.Result, Win, Loss, Draw, Aborted))
		f.Result = ""
	}
	if len(f.Opponent) > MaxOpponentFilter {
		cut := MaxOpponentFilter
		for cut > 0 && !utf8.RuneStart(f.Opponent[cut]) {
			cut--
		}
		f.Opponent = strings.TrimSpace(f.Opponent[:cut])
		errs = append(errs, fmt.Errorf("opponent: longer than %d bytes", MaxOpponentFilter))
	}
	return f, errors.Join(errs...)
}

// Match reports whether s passes the filter.
func (f Filter) Match(s Summary) bool {
	m := f.matcher()
	return m.modeResult(s.Mode, s.Result, s.MatchResult == Aborted) && m.opponent(strings.ToLower(s.Opponent))
}

// Tally counts a group of games from the bot's side: how many, won, drawn
// and lost (the leg's result), the mean discs of the bot and of its
// opponent (the discs that count), and, over the analysed games, the
// bot's mean loss per move.
type Tally struct {
	Key                          string
	Games, Wins, Draws, Losses   int
	MeanDiscs, MeanOpponentDiscs float64
	// Analysed counts the analysed games; MeanLoss is the bot's loss per
	// move over their Moves counted moves (0 when none).
	Analysed, Moves int
	MeanLoss        float64
}

// Tallies groups the games the bot played (my_color 1 or 2) by key, in
// the order of their groups' sizes (largest first, then by key).
func Tallies(sums []Summary, key func(Summary) string) []Tally {
	byKey := map[string]*Tally{}
	var order []*Tally
	loss := map[*Tally]float64{}
	for _, s := range sums {
		if s.MyColor != 1 && s.MyColor != 2 {
			continue
		}
		k := key(s)
		t := byKey[k]
		if t == nil {
			t = &Tally{Key: k}
			byKey[k] = t
			order = append(order, t)
		}
		t.Games++
		switch s.Result {
		case Win:
			t.Wins++
		case Draw:
			t.Draws++
		case Loss:
			t.Losses++
		}
		me := s.MyColor - 1
		t.MeanDiscs += float64(s.Discs[me])
		t.MeanOpponentDiscs += float64(s.Discs[1-me])
		if s.Analysis != nil {
			mean, n, _ := s.Analysis.Side(s.MyColor)
			t.Analysed++
			t.Moves += n
			loss[t] += mean * float64(n)
		}
	}
	out := make([]Tally, 0, len(order))
	for _, t := range order {
		t.MeanDiscs /= float64(t.Games)
		t.MeanOpponentDiscs /= float64(t.Games)
		if t.Moves > 0 {
			t.MeanLoss = loss[t] / float64(t.Moves)
		}
		out = append(out, *t)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Games != out[j].Games {
			return out[i].Games > out[j].Games
		}
		return out[i].Key < out[j].Key
	})
	return out
}
