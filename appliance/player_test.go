package appliance

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/bot"
)

func TestReportFromBot(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	st := bot.Status{
		State: bot.StateOnline,
		Bot:   bot.BotInfo{ID: 9, Name: "PiBot", Rating: 1612},
		Matches: []bot.MatchStatus{{ID: 5, Mode: "octagon", Status: "running", Opponent: "Tenten", Legs: []bot.LegStatus{
			{Leg: 0, Status: "active", BoardSize: 10, Board: make([]int, 100), MyColor: 2, Turn: 2, Discs: [2]int{6, 6},
				Clocks: [2]time.Duration{59 * time.Second, 41500 * time.Millisecond}, LastMove: -2},
		}}},
		Results: []bot.Result{{MatchID: 4, Mode: "std", Opponent: "Edax", Outcome: bot.OutcomeLoss, Mine: 20, Theirs: 44, Reason: "discs"}},
	}
	rep := reportFromBot(st, now)
	assert.True(t, rep.Online)
	assert.Equal(t, "PiBot", rep.Bot.Name)
	require.Len(t, rep.Matches, 1)
	l := rep.Matches[0].Legs[0]
	assert.True(t, l.MyTurn)
	assert.Equal(t, [2]int64{59000, 41500}, l.ClocksMS)
	assert.Len(t, l.Blocked, 12, "octagon's blocked corners")
	assert.Equal(t, now, l.ClockAt)
	require.Len(t, rep.Results, 1)
	assert.Equal(t, 44, rep.Results[0].OppDiscs)

	down := reportFromBot(bot.Status{State: bot.StateConnecting, LastError: `flipsight bot-stream: Post "http://127.0.0.1:1/x": dial tcp 127.0.0.1:1: connect: connection refused`}, now)
	assert.False(t, down.Online)
	assert.True(t, errors.Is(down.Err, ErrNetwork))
	busy := reportFromBot(bot.Status{State: bot.StateConnecting, LastError: `flipsight agent_poll: HTTP 503: "bot match storage unavailable"`}, now)
	assert.False(t, errors.Is(busy.Err, ErrNetwork), "the server answered")
}

func TestRunClocks(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	st := Status{Matches: []Match{{Legs: []Leg{
		{Status: "active", Turn: 1, ClocksMS: [2]int64{10_000, 20_000}, ClockAt: at},
		{Status: "finished", Turn: 2, ClocksMS: [2]int64{10_000, 20_000}, ClockAt: at},
		{Status: "active", Turn: 2, ClocksMS: [2]int64{10_000, 1_000}, ClockAt: at},
	}}}}
	runClocks(&st, at.Add(2500*time.Millisecond))
	l := st.Matches[0].Legs
	assert.Equal(t, [2]int64{7_500, 20_000}, l[0].ClocksMS, "the mover's clock runs")
	assert.Equal(t, [2]int64{10_000, 20_000}, l[1].ClocksMS, "a finished leg's clocks stand")
	assert.Equal(t, [2]int64{10_000, 0}, l[2].ClocksMS, "never below zero")
}
