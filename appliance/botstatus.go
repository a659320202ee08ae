package appliance

import (
	"slices"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot"
)

// applyBotStatus copies the bot's report into the appliance's status. The
// bot's types are the appliance's (BotInfo, Match, Leg and Result are
// aliases), so only the top level is copied, field by field; a test checks
// that every field of bot.Status is used here.
func applyBotStatus(st *state.Status, rep bot.Status) {
	st.BotState = rep.State
	st.Online = rep.Online()
	if rep.Bot != (state.BotInfo{}) {
		st.Bot = rep.Bot // keep the last known identity while reconnecting
	}
	st.Matches = slices.Clone(rep.Matches)
	if st.Matches == nil {
		st.Matches = []state.Match{}
	}
	if rep.Results != nil {
		st.Results = slices.Clone(rep.Results)
	}
	st.NetworkDown = !st.Online && rep.NetworkDown
	switch {
	case st.Online:
		st.Detail = ""
	case rep.LastError != "":
		st.Detail = rep.LastError
	}
	st.BotUpdated = rep.Updated
}
