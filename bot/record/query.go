package record

import (
	"errors"
	"fmt"
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
	if f.Mode != "" && s.Mode != f.Mode {
		return false
	}
	if f.Result != "" && s.Result != f.Result && !(f.Result == Aborted && s.MatchResult == Aborted) {
		return false
	}
	if f.Opponent != "" && !strings.Contains(strings.ToLower(s.Opponent), strings.ToLower(f.Opponent)) {
		return false
	}
	return true
}
