package config

import (
	"errors"
	"flag"
	"io"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseApplianceOnDevice(t *testing.T) {
	def := ApplianceDefaults{OnDevice: true, Perm: "/perm", Port: 8080, Drain: 15 * time.Second}
	a, err := ParseAppliance(nil, def, envOf(map[string]string{HomeEnv: "/perm/home/flipbot", TokenEnv: "fsbm_x"}), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "/perm/home/flipbot", a.Dir)
	assert.Equal(t, "/perm", a.Perm)
	assert.Equal(t, 8080, a.Port)
	assert.True(t, a.Indicators)
	assert.Equal(t, 15*time.Second, a.Drain)
	assert.Equal(t, "/perm/home/flipbot/games", a.GamesDir, "records on /perm survive gok update")
	assert.Equal(t, "fsbm_x", a.EnvToken)
}

func TestParseApplianceOnAPC(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("macOS directories differ")
	}
	def := ApplianceDefaults{Perm: "/perm", Port: 8080}
	a, err := ParseAppliance([]string{"-port", "9000", "-api", "http://127.0.0.1:8088/flipsight/bot_match_api.php", "-egaroucid", "/x/eg"},
		def, envOf(map[string]string{HomeEnv: "/home/u"}), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("/home/u", ".config", "flipbot"), a.Dir)
	assert.Empty(t, a.Perm)
	assert.False(t, a.Indicators)
	assert.Equal(t, 9000, a.Port)
	assert.Equal(t, "/x/eg", a.Egaroucid)
	assert.Equal(t, "/home/u/.local/share/flipbot/games", a.GamesDir)

	a, err = ParseAppliance([]string{"-no-records"}, def, envOf(map[string]string{DataHomeEnv: "/d", HomeEnv: "/h"}), io.Discard)
	require.NoError(t, err)
	assert.Empty(t, a.GamesDir)
	a, err = ParseAppliance([]string{"-games-dir", "/g"}, def, envOf(map[string]string{HomeEnv: "/h"}), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "/g", a.GamesDir)
}

func TestParseApplianceErrors(t *testing.T) {
	def := ApplianceDefaults{Port: 8080}
	home := envOf(map[string]string{HomeEnv: "/h"})
	for _, args := range [][]string{{"extra"}, {"-port", "70000"}, {"-port", "-2"}, {"-drain", "-1s"}, {"-api", "ftp://x"}, {"-nope"}} {
		_, err := ParseAppliance(args, def, home, io.Discard)
		assert.Error(t, err, "%v", args)
	}
	_, err := ParseAppliance(nil, def, envOf(nil), io.Discard)
	require.Error(t, err, "no directory at all")
	_, err = ParseAppliance([]string{"-h"}, def, home, io.Discard)
	require.True(t, errors.Is(err, flag.ErrHelp))
}

func TestDefaultGamesDir(t *testing.T) {
	assert.Equal(t, "/perm/home/flipbot/games", DefaultGamesDir(envOf(map[string]string{HomeEnv: "/perm/home/flipbot"}), true))
	assert.Empty(t, DefaultGamesDir(envOf(nil), true))
	assert.Equal(t, "/xdg/flipbot/games", DefaultGamesDir(envOf(map[string]string{DataHomeEnv: "/xdg", HomeEnv: "/h"}), false))
	assert.Empty(t, DefaultGamesDir(envOf(nil), false))
}

func TestParseBotRecords(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("macOS directories differ")
	}
	get := envOf(map[string]string{TokenEnv: "fsbm_x", HomeEnv: "/home/u"})
	b, err := ParseBot(nil, get, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "/home/u/.local/share/flipbot/games", b.GamesDir)
	b, err = ParseBot([]string{"--games-dir", "/g"}, get, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "/g", b.GamesDir)
	b, err = ParseBot([]string{"--no-records"}, get, io.Discard)
	require.NoError(t, err)
	assert.Empty(t, b.GamesDir)
	_, err = ParseBot([]string{"--no-records", "--games-dir", "/g"}, get, io.Discard)
	require.Error(t, err)
}
