package record

import (
	"cmp"
	"slices"
	"strings"
)

// The Store's index: every game it lists (on disk or only in memory) in
// the order of its lists, and running tallies of them, so that a list
// request costs what it shows, not what is kept.

// cmpOrder orders the index: oldest first by end time, and among equal
// end times the last indexed first, so that the index read backwards is
// the lists' order (newest first, then in the order indexed).
func cmpOrder(a, b *entry) int {
	if c := a.sum.Ended.Compare(b.sum.Ended); c != 0 {
		return c
	}
	return cmp.Compare(b.seq, a.seq)
}

// index adds e to the index and the tallies (under mu).
func (s *Store) index(e *entry) {
	s.seq++
	e.seq = s.seq
	e.oppLower = strings.ToLower(e.sum.Opponent)
	i, _ := slices.BinarySearchFunc(s.order, e, cmpOrder)
	s.order = slices.Insert(s.order, i, e)
	s.tally.add(e, 1)
}

// indexAll adds es, in their order, to the index and the tallies, sorting
// the index once (under mu).
func (s *Store) indexAll(es []*entry) {
	for _, e := range es {
		s.seq++
		e.seq = s.seq
		e.oppLower = strings.ToLower(e.sum.Opponent)
		s.tally.add(e, 1)
	}
	s.order = append(s.order, es...)
	slices.SortFunc(s.order, cmpOrder)
}

// unindex removes e from the index and the tallies (under mu).
func (s *Store) unindex(e *entry) {
	if i, ok := slices.BinarySearchFunc(s.order, e, cmpOrder); ok && s.order[i] == e {
		s.order = slices.Delete(s.order, i, i+1)
		s.tally.add(e, -1)
	}
}

// unindexGone removes the entries marked gone from the index (under mu):
// one pass over it, however many go.
func (s *Store) unindexGone() {
	s.order = slices.DeleteFunc(s.order, func(e *entry) bool {
		if e.gone {
			s.tally.add(e, -1)
		}
		return e.gone
	})
}

// setAnalysis sets (nil: clears) the analysis summary of e, a game on
// disk, whose file takes size bytes, keeping the counts and the tallies
// (under mu).
func (s *Store) setAnalysis(e *entry, ana *AnalysisSummary, size int64) {
	s.tally.add(e, -1)
	if e.ana != nil {
		s.analysed--
		s.anaBytes -= e.anaSize
	}
	e.ana, e.anaSize = ana, size
	if ana != nil {
		s.analysed++
		s.anaBytes += size
	}
	s.tally.add(e, 1)
}

// matcher is a Filter prepared to test many games without allocating.
type matcher struct {
	mode, result, opp string // opp lower-cased
}

func (f Filter) matcher() matcher {
	return matcher{mode: f.Mode, result: f.Result, opp: strings.ToLower(f.Opponent)}
}

// all reports whether the filter passes every game.
func (m matcher) all() bool { return m == matcher{} }

func (m matcher) opponent(oppLower string) bool {
	return m.opp == "" || strings.Contains(oppLower, m.opp)
}

func (m matcher) modeResult(mode, result string, aborted bool) bool {
	if m.mode != "" && mode != m.mode {
		return false
	}
	return m.result == "" || result == m.result || m.result == Aborted && aborted
}

func (m matcher) entry(e *entry) bool {
	return m.modeResult(e.sum.Mode, e.sum.Result, e.sum.MatchResult == Aborted) && m.opponent(e.oppLower)
}

// cellKey is one group of the running tallies, within an opponent: the
// games of one mode and result, whose match was aborted or not, played by
// the bot (my_color 1 or 2) or not.
type cellKey struct {
	mode, result  string
	aborted, mine bool
}

// cell is the running sums of one group.
type cell struct {
	key                        cellKey
	games, wins, draws, losses int
	discs, oppDiscs            int64
	// analysed counts the analysed games; moves and loss, over those the
	// bot played, its counted moves and their total loss.
	analysed, moves int
	loss            float64
}

// oppCells is the groups of one opponent's games.
type oppCells struct {
	lower string
	cells []*cell
}

// tallies are the running sums of every game indexed, by opponent: their
// size grows with the opponents (and the few groups of each), not with
// the games.
type tallies struct {
	byOpp map[string]*oppCells
}

// add adds e's game to the sums (sign 1) or takes it out (-1).
func (t *tallies) add(e *entry, sign int) {
	if t.byOpp == nil {
		t.byOpp = map[string]*oppCells{}
	}
	sum := &e.sum
	key := cellKey{mode: sum.Mode, result: sum.Result, aborted: sum.MatchResult == Aborted, mine: sum.MyColor == 1 || sum.MyColor == 2}
	o := t.byOpp[sum.Opponent]
	if o == nil {
		if sign < 0 {
			return
		}
		o = &oppCells{lower: e.oppLower}
		t.byOpp[sum.Opponent] = o
	}
	i := slices.IndexFunc(o.cells, func(c *cell) bool { return c.key == key })
	if i < 0 {
		if sign < 0 {
			return
		}
		o.cells = append(o.cells, &cell{key: key})
		i = len(o.cells) - 1
	}
	c := o.cells[i]
	c.games += sign
	if key.mine {
		switch sum.Result {
		case Win:
			c.wins += sign
		case Draw:
			c.draws += sign
		case Loss:
			c.losses += sign
		}
		me := sum.MyColor - 1
		c.discs += int64(sign * sum.Discs[me])
		c.oppDiscs += int64(sign * sum.Discs[1-me])
	}
	if e.ana != nil {
		c.analysed += sign
		if key.mine {
			mean, n, _ := e.ana.Side(sum.MyColor)
			c.moves += sign * n
			c.loss += float64(sign) * mean * float64(n)
		}
	}
	if c.moves == 0 {
		c.loss = 0 // no drift left from sums taken out
	}
	if c.games <= 0 {
		o.cells = slices.Delete(o.cells, i, i+1)
		if len(o.cells) == 0 {
			delete(t.byOpp, sum.Opponent)
		}
	}
}

// count returns how many games pass m, and how many of those are
// analysed.
func (t *tallies) count(m matcher) (games, analysed int) {
	for _, o := range t.byOpp {
		if !m.opponent(o.lower) {
			continue
		}
		for _, c := range o.cells {
			if m.modeResult(c.key.mode, c.key.result, c.key.aborted) {
				games += c.games
				analysed += c.analysed
			}
		}
	}
	return games, analysed
}

// acc sums cells into a Tally.
type acc struct {
	t               Tally
	discs, oppDiscs int64
	loss            float64
}

func (a *acc) add(c *cell) {
	a.t.Games += c.games
	a.t.Wins += c.wins
	a.t.Draws += c.draws
	a.t.Losses += c.losses
	a.t.Analysed += c.analysed
	a.t.Moves += c.moves
	a.discs += c.discs
	a.oppDiscs += c.oppDiscs
	a.loss += c.loss
}

func (a *acc) tally() Tally {
	t := a.t
	if t.Games > 0 {
		t.MeanDiscs = float64(a.discs) / float64(t.Games)
		t.MeanOpponentDiscs = float64(a.oppDiscs) / float64(t.Games)
	}
	if t.Moves > 0 {
		t.MeanLoss = a.loss / float64(t.Moves)
	}
	return t
}

// cmpTally is the order of Tallies: larger groups first, then by key.
func cmpTally(a, b Tally) int {
	if c := cmp.Compare(b.Games, a.Games); c != 0 {
		return c
	}
	return strings.Compare(a.Key, b.Key)
}

// Overview is what the games page shows of the games that pass a filter:
// how many, how many analysed, and [Tally] rows by mode and by opponent.
type Overview struct {
	Games, Analysed int
	// ByMode and ByOpponent are as Tallies makes them; ByOpponent has the
	// largest groups only, MoreOpponents counting the others.
	ByMode        []Tally
	ByOpponent    []Tally
	MoreOpponents int
}

// Overview tallies the games that pass f from the store's running sums, as
// [Tallies] would from the summaries of all of them, keeping the
// maxOpponents largest opponents' rows. It costs time in proportion to
// the opponents kept (and the few groups of each), and memory in
// proportion to the modes and maxOpponents, never to the games.
func (s *Store) Overview(f Filter, maxOpponents int) Overview {
	m := f.matcher()
	maxOpponents = max(maxOpponents, 0)
	var ov Overview
	var modes []acc
	top := make([]Tally, 0, max(maxOpponents, 0)+1)
	s.mu.Lock()
	defer s.mu.Unlock()
	for opp, o := range s.tally.byOpp {
		if !m.opponent(o.lower) {
			continue
		}
		a := acc{t: Tally{Key: opp}}
		for _, c := range o.cells {
			if !m.modeResult(c.key.mode, c.key.result, c.key.aborted) {
				continue
			}
			ov.Games += c.games
			ov.Analysed += c.analysed
			if !c.key.mine {
				continue
			}
			a.add(c)
			i := slices.IndexFunc(modes, func(x acc) bool { return x.t.Key == c.key.mode })
			if i < 0 {
				modes = append(modes, acc{t: Tally{Key: c.key.mode}})
				i = len(modes) - 1
			}
			modes[i].add(c)
		}
		if a.t.Games == 0 {
			continue
		}
		row := a.tally()
		if len(top) == maxOpponents && (maxOpponents == 0 || cmpTally(row, top[len(top)-1]) > 0) {
			ov.MoreOpponents++
			continue
		}
		i, _ := slices.BinarySearchFunc(top, row, cmpTally)
		top = slices.Insert(top, i, row)
		if len(top) > maxOpponents {
			top = top[:maxOpponents]
			ov.MoreOpponents++
		}
	}
	ov.ByOpponent = top
	ov.ByMode = make([]Tally, 0, len(modes))
	for i := range modes {
		ov.ByMode = append(ov.ByMode, modes[i].tally())
	}
	slices.SortFunc(ov.ByMode, cmpTally)
	return ov
}
