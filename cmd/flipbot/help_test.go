package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelp: help, -h and --help list the commands, FS_BOT_TOKEN,
// FLIPBOT_ENGINE_ENV and the exit codes before the flags, on stdout, and
// exit 0 (they listed the flags only, and `flipbot help` was refused).
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"-help"}, {"--verbose", "--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			require.Equal(t, exitOK, dispatch(args, env(""), &out, &errb), errb.String())
			s := out.String()
			for _, want := range []string{
				"challenge NAME|ID", "games list|export|show|analyse", "appliance [flags]", "display-preview",
				"version", "FS_BOT_TOKEN", "FLIPBOT_ENGINE_ENV",
				"Exit codes", "0  a normal end", "1  any other failure", "2  FS_BOT_TOKEN missing or rejected", "3  --max-runtime reached",
				"-max-think-seconds", "-once-match ID",
			} {
				assert.Contains(t, s, want)
			}
			assert.NotContains(t, s, "Usage of flipbot", "the flag package's own heading is replaced")
			assert.Less(t, strings.Index(s, "Exit codes"), strings.Index(s, "-max-think-seconds"), "the flags come last")
			assert.Empty(t, errb.String())
		})
	}
}

// TestHelpCommand: `flipbot help COMMAND` is COMMAND -h; an unknown one is
// a usage error.
func TestHelpCommand(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, exitOK, dispatch([]string{"help", "version"}, env(""), &out, &errb))
	assert.Contains(t, out.String(), "usage: flipbot version")
	out.Reset()
	assert.Equal(t, exitUsage, dispatch([]string{"help", "dance"}, env(""), &out, &errb))
	assert.Contains(t, errb.String(), `unknown command "dance"`)
}

// TestUsageErrorStaysOnStderr: a bad flag still prints the flags and the
// error on stderr, with exit code 2, and nothing on stdout.
func TestUsageErrorStaysOnStderr(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, exitUsage, dispatch([]string{"--no-such-flag"}, env(testToken), &out, &errb))
	assert.Empty(t, out.String())
	assert.Contains(t, errb.String(), "flag provided but not defined: -no-such-flag")
}

// TestVersion: version and --version print the module version and the VCS
// revision (they were refused).
func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version"} {
		var out, errb bytes.Buffer
		require.Equal(t, exitOK, dispatch([]string{arg}, env(""), &out, &errb), errb.String())
		assert.Contains(t, out.String(), "flipbot ")
		assert.Contains(t, out.String(), "revision ")
	}
	var out, errb bytes.Buffer
	assert.Equal(t, exitUsage, dispatch([]string{"version", "x"}, env(""), &out, &errb))
}

// TestSubcommandHelp: each subcommand's -h shows its arguments and exits 0
// (challenge -h did not show NAME|ID; display-preview -h exited 2).
func TestSubcommandHelp(t *testing.T) {
	tests := []struct {
		name string
		run  func(stdout, stderr *bytes.Buffer) int
		want []string
	}{
		{"challenge", func(o, e *bytes.Buffer) int {
			return challenge(context.Background(), []string{"-h"}, env(""), o, e, sleep)
		}, []string{"usage: flipbot challenge NAME|ID", "FS_BOT_TOKEN", "-mode MODE", "-retries"}},
		{"display-preview", func(o, e *bytes.Buffer) int { return displayPreview([]string{"-h"}, e) },
			[]string{"usage: flipbot display-preview", "--out FILE.png", "-state"}},
		{"games", func(o, e *bytes.Buffer) int { return games([]string{"-h"}, env(""), o, e) },
			[]string{"flipbot games list", "flipbot games show   [--games-dir DIR] ID"}},
		{"games list", func(o, e *bytes.Buffer) int { return games([]string{"list", "-h"}, env(""), o, e) },
			[]string{"flipbot games list", "-opponent TEXT"}},
		{"games export", func(o, e *bytes.Buffer) int { return games([]string{"export", "-h"}, env(""), o, e) },
			[]string{"flipbot games export", "-format"}},
		{"games show", func(o, e *bytes.Buffer) int { return games([]string{"show", "-h"}, env(""), o, e) },
			[]string{"flipbot games show", "ID"}},
		{"games analyse", func(o, e *bytes.Buffer) int { return games([]string{"analyse", "-h"}, env(""), o, e) },
			[]string{"flipbot games analyse", "-redo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			require.Equal(t, exitOK, tt.run(&out, &errb))
			s := out.String() + errb.String()
			for _, w := range tt.want {
				assert.Contains(t, s, w)
			}
		})
	}
}
