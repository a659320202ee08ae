package main

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

func TestParseConfigDefaults(t *testing.T) {
	c, err := parseConfig(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, config{
		Duration: time.Hour, FaultEvery: 20 * time.Second, Clock: time.Minute, MaxThink: 10 * time.Second, Level: 4,
		SampleEvery: 30 * time.Second, ProgressEvery: 5 * time.Minute, Modes: othello.AllModes(),
	}, c)
}

func TestParseConfigFlags(t *testing.T) {
	c, err := parseConfig([]string{"-duration", "1m", "-fault-every", "5s", "-clock", "30s", "-max-think", "500ms",
		"-level", "2", "-out", "/tmp/x", "-engine-bin", "/bin/fe", "-sample-every", "10s", "-progress-every", "20s",
		"-modes", "std, grand", "-cpuprofile", "-heap-every", "30s"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, config{
		Duration: time.Minute, FaultEvery: 5 * time.Second, Clock: 30 * time.Second, MaxThink: 500 * time.Millisecond,
		Level: 2, Out: "/tmp/x", EngineBin: "/bin/fe", SampleEvery: 10 * time.Second, ProgressEvery: 20 * time.Second,
		HeapEvery: 30 * time.Second, CPUProfile: true, Modes: []othello.Mode{othello.Std, othello.Grand},
	}, c)
}

func TestParseConfigRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-modes", "std,chess"}, "-modes"},
		{[]string{"-cpuprofile"}, "need -out"},
		{[]string{"-heap-every", "1m"}, "need -out"},
		{[]string{"-fault-every", "0"}, "-fault-every must be positive"},
		{[]string{"-sample-every", "-1s"}, "-sample-every must be positive"},
		{[]string{"-max-think", "-1s"}, "cannot be negative"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-no-such-flag"}, "not defined"},
	} {
		_, err := parseConfig(tc.args, io.Discard)
		assert.ErrorContains(t, err, tc.want, "%q", tc.args)
	}
	_, err := parseConfig([]string{"-h"}, io.Discard)
	assert.ErrorIs(t, err, flag.ErrHelp)
}

func TestSoakExitStatusOnABadCommandLine(t *testing.T) {
	assert.Equal(t, 2, soak([]string{"-modes", "chess"}, io.Discard, io.Discard))
	assert.Equal(t, 0, soak([]string{"-h"}, io.Discard, io.Discard))
}
