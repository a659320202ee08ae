package bot

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/flipsight"
)

func TestRecentIDs(t *testing.T) {
	tests := []struct {
		name      string
		capacity  int
		add       []int64
		has, lost []int64
		size      int
	}{
		{"empty", 3, nil, nil, []int64{1}, 0},
		{"under capacity", 3, []int64{1, 2}, []int64{1, 2}, []int64{3}, 2},
		{"duplicates count once", 3, []int64{1, 1, 2, 1}, []int64{1, 2}, nil, 2},
		{"full forgets the oldest", 3, []int64{1, 2, 3, 4}, []int64{2, 3, 4}, []int64{1}, 3},
		{"wraps around", 3, []int64{1, 2, 3, 4, 5, 6, 7}, []int64{5, 6, 7}, []int64{1, 2, 3, 4}, 3},
		{"capacity 0 keeps one", 0, []int64{1, 2}, []int64{2}, []int64{1}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecent[int64](tc.capacity)
			for _, id := range tc.add {
				r.add(id)
			}
			for _, id := range tc.has {
				assert.True(t, r.has(id), "has %d", id)
			}
			for _, id := range tc.lost {
				assert.False(t, r.has(id), "has %d", id)
			}
			assert.Equal(t, tc.size, r.len())
		})
	}
}

// TestEndedMatchesAreBounded plays the bookkeeping of many more matches than
// the bot remembers: its memory of ended matches stays at the bound (it grew
// by one entry a match, forever, before), and a match that ended recently is
// still not revived by a late view of it.
func TestEndedMatchesAreBounded(t *testing.T) {
	tok, err := flipsight.NewToken("fsbm_bounded")
	require.NoError(t, err)
	c, err := flipsight.NewClient(flipsight.Config{APIURL: "http://127.0.0.1:1/api", Token: tok})
	require.NoError(t, err)
	b, err := New(Options{Client: c, Engine: factoryOf(&fakeEngine{}, Shared), Logger: testLogger(t)})
	require.NoError(t, err)
	b.me = 2
	b.quitting = true // no network: nothing is accepted or sent
	now := time.Now()
	running := func(id int64) flipsight.Match {
		var m flipsight.Match
		js := fmt.Sprintf(`{"id":%d,"bot_a":1,"bot_b":2,"status":"running","game_mode":"std","state":{"game_mode":"std","legs":[]}}`, id)
		require.NoError(t, json.Unmarshal([]byte(js), &m))
		return m
	}
	const n = 2*maxRecentIDs + 100
	for id := int64(1); id <= n; id++ {
		m := running(id)
		b.observe(m, 1800000000000, now)
		tm := b.matches[id]
		require.NotNil(t, tm, "match %d tracked", id)
		fin := m
		fin.Status = flipsight.MatchFinished
		b.finish(tm, &fin)
	}
	assert.Empty(t, b.matches)
	assert.Equal(t, maxRecentIDs, b.ended.len())
	b.observe(running(n), 1800000000000, now)
	assert.Nil(t, b.matches[n], "a late running view of a match that just ended revives it")
}
