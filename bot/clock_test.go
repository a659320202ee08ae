package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock/clocktest"
)

// TestTheBotsTimersRunOnItsClock: given a fake clock, the bot polls again
// and writes its minute's status line only when that clock is advanced;
// none of its scheduling reads the system clock. (Before the one clock,
// polls ran on real time: a dozen in the second waited here.)
func TestTheBotsTimersRunOnItsClock(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	clk := clocktest.New(time.Now())
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, c *flipsight.Config) {
		o.Clock = clk
		c.StreamReadTimeout = time.Minute // the stream's reads are the HTTP client's, on real time
	})
	waitFor(t, 5*time.Second, "online", func() bool { return br.bot.Status().State == StateOnline })
	waitFor(t, 5*time.Second, "the first poll", func() bool { return fs.front.Polls() > 0 })
	time.Sleep(200 * time.Millisecond) // polls the connection made are in
	polls := fs.front.Polls()
	time.Sleep(time.Second) // ten idle poll intervals of real time
	assert.Equal(t, polls, fs.front.Polls(), "no poll while the bot's clock stands")

	clk.Advance(fastTiming.PollStream)
	waitFor(t, 5*time.Second, "a poll once the clock moved", func() bool { return fs.front.Polls() > polls })

	assert.NotContains(t, br.logs.String(), `msg=status `)
	clk.Advance(time.Minute)
	waitFor(t, 5*time.Second, "the status line after the clock's minute", func() bool {
		return strings.Contains(br.logs.String(), `msg=status `)
	})
}
