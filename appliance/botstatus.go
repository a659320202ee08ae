package appliance

import (
	"slices"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot"
)

// reportOf returns the status's report after the bot's report rep, prev
// being the one before. The bot's types are the status's (BotInfo, Match,
// Leg and Result are aliases), so only the top level is copied, field by
// field; a test checks that every field of bot.Status is used here. The
// bot's results are merged into those kept before (mergeResults), so that
// a bot started anew does not empty them.
func reportOf(prev state.Report, rep bot.Status) state.Report {
	r := state.Report{
		BotState:   rep.State,
		Online:     rep.Online(),
		Bot:        prev.Bot, // the last known identity while reconnecting
		Matches:    slices.Clone(rep.Matches),
		Results:    prev.Results,
		Rejected:   prev.Rejected,
		Detail:     prev.Detail,
		BotUpdated: rep.Updated,
		// Reported while the bot runs; a new bot starts without it.
		EngineFailing: rep.EngineFailing,
	}
	if rep.Bot != (state.BotInfo{}) {
		r.Bot = rep.Bot
	}
	if r.Matches == nil {
		r.Matches = []state.Match{}
	}
	if rep.Results != nil {
		r.Results = mergeResults(prev.Results, rep.Results)
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
