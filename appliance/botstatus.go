package appliance

import (
	"maps"
	"slices"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot"
)

// reportOf returns the status's report after the bot's report rep, prev
// being the one before. The bot reports in its own Go types; the status
// has its own (appliance/state, with /api/status's JSON names), and the
// bot's are copied into them here, field by field: a test checks that
// every field of bot.Status, at every depth, reaches /api/status. The
// bot's results are merged into those kept before (mergeResults), so that
// a bot started anew does not empty them.
func reportOf(prev state.Report, rep bot.Status) state.Report {
	r := state.Report{
		BotState:   rep.State,
		Online:     rep.Online(),
		Bot:        prev.Bot, // the last known identity while reconnecting
		Matches:    matchesOf(rep.Matches),
		Results:    prev.Results,
		Rejected:   prev.Rejected,
		Detail:     prev.Detail,
		BotUpdated: rep.Updated,
		// Reported while the bot runs; a new bot starts without it.
		EngineFailing: rep.EngineFailing,
	}
	if rep.Bot != (bot.BotInfo{}) {
		r.Bot = botInfoOf(rep.Bot)
	}
	if rep.Results != nil {
		r.Results = mergeResults(prev.Results, resultsOf(rep.Results))
	}
	r.NetworkDown = !r.Online && rep.NetworkDown
	switch {
	case r.Online:
		r.Detail = ""
	case rep.LastError != "":
		r.Detail = rep.LastError
	}
	return r
}

// botInfoOf is the status's form of the bot's identity.
func botInfoOf(b bot.BotInfo) state.BotInfo {
	return state.BotInfo{ID: b.ID, Name: b.Name, Rating: b.Rating, RD: b.RD,
		Wins: b.Wins, Losses: b.Losses, Draws: b.Draws, Official: b.Official}
}

// matchesOf is the status's form of the running matches: never nil (an
// empty list, not null, in /api/status).
func matchesOf(ms []bot.MatchStatus) []state.Match {
	out := make([]state.Match, 0, len(ms))
	for _, m := range ms {
		sm := state.Match{ID: m.ID, Human: m.Human, Mode: m.Mode, Status: m.Status, Ranked: m.Ranked,
			Opponent: m.Opponent, Participant: m.Participant, Totals: m.Totals, Moves: movesOf(m.Moves)}
		if m.Legs != nil {
			sm.Legs = make([]state.Leg, 0, len(m.Legs))
		}
		for _, l := range m.Legs {
			sm.Legs = append(sm.Legs, state.Leg{Leg: l.Leg, Status: l.Status, BoardSize: l.BoardSize,
				Board: slices.Clone(l.Board), Blocked: slices.Clone(l.Blocked),
				MyColor: l.MyColor, Turn: l.Turn, MyTurn: l.MyTurn, Discs: l.Discs,
				ClocksMS: l.ClocksMS, ClocksAt: l.ClocksAt, Revision: l.Revision,
				LastMove: l.LastMove, Moves: l.Moves, Thinking: l.Thinking, LastSearch: searchOf(l.LastSearch)})
		}
		out = append(out, sm)
	}
	return out
}

// searchOf is the status's form of a move the bot sent.
func searchOf(s bot.Search) state.Search {
	return state.Search{Move: s.Move, Revision: s.Revision, Ply: s.Ply, Source: s.Source, Cause: s.Cause,
		Depth: s.Depth, Exact: s.Exact, Score: s.Score, ElapsedMS: s.ElapsedMS}
}

// movesOf is the status's form of a match's move counts.
func movesOf(c bot.MoveCounts) state.MoveCounts {
	return state.MoveCounts{Engine: c.Engine, Forced: c.Forced, Fallbacks: maps.Clone(c.Fallbacks)}
}

// resultsOf is the status's form of the finished matches (nil for nil).
func resultsOf(rs []bot.Result) []state.Result {
	if rs == nil {
		return nil
	}
	out := make([]state.Result, 0, len(rs))
	for _, r := range rs {
		out = append(out, state.Result{MatchID: r.MatchID, Human: r.Human, Ranked: r.Ranked, Mode: r.Mode,
			Opponent: r.Opponent, Outcome: r.Outcome, Mine: r.Mine, Theirs: r.Theirs, Reason: r.Reason,
			At: r.At, Games: slices.Clone(r.Games), Moves: movesOf(r.Moves)})
	}
	return out
}
