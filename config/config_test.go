package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(tok string) func(string) string {
	return func(k string) string {
		if k == TokenEnv {
			return tok
		}
		return ""
	}
}

func TestParseBotDefaults(t *testing.T) {
	b, err := ParseBot(nil, env("fsbm_x"), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 10*time.Second, b.MaxThink)
	assert.Equal(t, 2, b.MaxMatches)
	assert.Equal(t, LogText, b.LogFormat)
	assert.Equal(t, "builtin", b.EngineKind())
	assert.False(t, b.Token.IsZero())
	assert.Zero(t, b.MaxRuntime)
	assert.Equal(t, "best", b.Eval)
	assert.Equal(t, DefaultPonder, b.Ponder)
	assert.Equal(t, DefaultDrain, b.Drain)
	assert.Equal(t, 150*time.Second, b.Drain, "a bot match started just before the stop: 2 × 60 s + 30 s")
}

func TestParseBotDrain(t *testing.T) {
	for arg, want := range map[string]time.Duration{"90s": 90 * time.Second, "0": 0, "5m": 5 * time.Minute} {
		b, err := ParseBot([]string{"--drain", arg}, env("fsbm_x"), io.Discard)
		require.NoError(t, err, arg)
		assert.Equal(t, want, b.Drain, arg)
	}
}

func TestParseBotPonder(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, DefaultPonder},
		{[]string{"--ponder"}, true},
		{[]string{"--ponder=true"}, true},
		{[]string{"--ponder=false"}, false},
	} {
		b, err := ParseBot(tc.args, env("fsbm_x"), io.Discard)
		require.NoError(t, err)
		assert.Equal(t, tc.want, b.Ponder, "%v", tc.args)
	}
}

func TestParseBotOfficialFlags(t *testing.T) {
	args := []string{"--engine", "python3 my_adapter.py", "--max-think-seconds", "2.5",
		"--engine-name", "Mine", "--cpu-name=Apple M4", "--once-match", "-45", "--max-runtime", "60",
		"--no-stream", "--api", "http://127.0.0.1:8080/flipsight/bot_match_api.php",
		"--stream-url", "http://127.0.0.1:8080/flipsight_api/bot-stream",
		"--threads", "2", "--hash-mb", "32", "--max-matches", "3", "--log-format", "json", "--eval", "baseline"}
	b, err := ParseBot(args, env("fsbm_x"), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "python3 my_adapter.py", b.Engine)
	assert.Equal(t, "engine", b.EngineKind())
	assert.Equal(t, 2500*time.Millisecond, b.MaxThink)
	assert.Equal(t, "Mine", b.EngineName)
	assert.Equal(t, "Apple M4", b.CPUName)
	assert.Equal(t, int64(-45), b.OnceMatch)
	assert.Equal(t, time.Minute, b.MaxRuntime)
	assert.True(t, b.NoStream)
	assert.Equal(t, 2, b.Threads)
	assert.Equal(t, 32, b.HashMB)
	assert.Equal(t, 3, b.MaxMatches)
	assert.Equal(t, LogJSON, b.LogFormat)
	assert.Equal(t, "baseline", b.Eval)
}

func TestParseBotErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"two engines", []string{"--engine", "a", "--edax", "b"}, "at most one"},
		{"think above 300", []string{"--max-think-seconds", "301"}, "max-think-seconds"},
		{"think negative", []string{"--max-think-seconds", "-1"}, "max-think-seconds"},
		{"nboard depth 61", []string{"--nboard", "x", "--nboard-depth", "61"}, "nboard-depth"},
		{"edax-eval alone", []string{"--edax-eval", "e.dat"}, "--edax-eval needs --edax"},
		{"long engine name", []string{"--engine-name", strings.Repeat("x", 121)}, "120"},
		{"max matches 0", []string{"--max-matches", "0"}, "max-matches"},
		{"negative drain", []string{"--drain", "-1s"}, "--drain must not be negative"},
		{"log format", []string{"--log-format", "xml"}, "log-format"},
		{"eval", []string{"--eval", "magic"}, "--eval must be best, pattern or baseline"},
		{"http api off loopback", []string{"--api", "http://othelloclub.com/x"}, "refused"},
		{"stream on other host", []string{"--stream-url", "https://evil.example/s"}, "refused"},
		{"positional", []string{"extra"}, "unexpected"},
		{"unknown flag", []string{"--nope"}, "not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseBot(tt.args, env("fsbm_x"), io.Discard)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.False(t, errors.Is(err, ErrNoToken))
		})
	}
}

func TestParseBotToken(t *testing.T) {
	for _, tok := range []string{"", "  ", "fsbm bad"} {
		_, err := ParseBot(nil, env(tok), io.Discard)
		require.ErrorIs(t, err, ErrNoToken, "token %q", tok)
	}
	b, err := ParseBot(nil, env("fsbm_SECRETVALUE\n"), io.Discard)
	require.NoError(t, err)
	assert.NotContains(t, fmt.Sprintf("%+v", b), "SECRETVALUE")
	_, err = ParseBot([]string{"-h"}, env("x"), io.Discard)
	assert.ErrorIs(t, err, flag.ErrHelp)
}

func TestParseChallenge(t *testing.T) {
	c, err := ParseChallenge([]string{"Opponent", "--mode", "grand"}, env("fsbm_x"), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "Opponent", c.TargetName)
	assert.Equal(t, "grand", c.Mode)
	c, err = ParseChallenge([]string{"--mode=anti", "12"}, env("fsbm_x"), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, int64(12), c.TargetID)
	c, err = ParseChallenge([]string{"X"}, env("fsbm_x"), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "std", c.Mode)
	assert.Equal(t, ChallengeRetriesDefault, c.Retries)
	assert.Equal(t, ChallengeWaitDefault, c.RetryWait)
	c, err = ParseChallenge([]string{"X", "--mode", "anti", "--nboard", "ntest", "--retries", "0", "--retry-wait", "0.05"}, env("fsbm_x"), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "ntest", c.NBoard)
	assert.Equal(t, 0, c.Retries)
	assert.Equal(t, 50*time.Millisecond, c.RetryWait)
	for _, args := range [][]string{{}, {"a", "b"}, {"X", "--mode", "chess"}, {"0"},
		{"X", "--edax", "e", "--nboard", "n"}, {"X", "--retries", "-1"}, {"X", "--retries", "101"},
		{"X", "--retry-wait", "0"}, {"X", "--retry-wait", "NaN"}, {"X", "--retry-wait", "3601"}} {
		_, err := ParseChallenge(args, env("fsbm_x"), io.Discard)
		assert.Error(t, err, "%v", args)
	}
	_, err = ParseChallenge([]string{"X"}, env(""), io.Discard)
	assert.ErrorIs(t, err, ErrNoToken)
}
