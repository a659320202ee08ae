package config

import (
	"path/filepath"
	"runtime"
)

// Environment variables read besides TokenEnv.
const (
	// HomeEnv is the home directory: /perm/home/flipbot on the device.
	HomeEnv = "HOME"
	// DataHomeEnv is the XDG data directory of a PC (default ~/.local/share).
	DataHomeEnv = "XDG_DATA_HOME"
	// ConfigHomeEnv is the XDG configuration directory of a PC (default
	// ~/.config).
	ConfigHomeEnv = "XDG_CONFIG_HOME"
	// EngineEnvEnv lists, comma-separated, further variables that external
	// engines get besides the allow-list of engines/proc (which reads it:
	// proc.ExtraEnvVar, a test there checks they agree).
	EngineEnvEnv = "FLIPBOT_ENGINE_ENV"
)

// GamesDirName is the directory of the game records under the home
// directory (device) or the data directory (PC).
const GamesDirName = "games"

// DataDir returns flipbot's data directory on a PC: $XDG_DATA_HOME/flipbot,
// else ~/.local/share/flipbot (~/Library/Application Support/flipbot on
// macOS); "" when neither variable is set.
func DataDir(getenv func(string) string) string {
	return xdgDir(getenv, DataHomeEnv, ".local", "share")
}

// ConfigDir returns flipbot's configuration directory on a PC:
// $XDG_CONFIG_HOME/flipbot, else ~/.config/flipbot (~/Library/Application
// Support/flipbot on macOS); "" when neither variable is set.
func ConfigDir(getenv func(string) string) string {
	return xdgDir(getenv, ConfigHomeEnv, ".config")
}

// xdgDir returns flipbot's directory under the XDG base directory named by
// the variable env when that is an absolute path, else under $HOME joined
// with home (the XDG default: ".config", or ".local", "share"), or under
// ~/Library/Application Support on macOS; "" when neither is set.
func xdgDir(getenv func(string) string, env string, home ...string) string {
	if d := getenv(env); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "flipbot")
	}
	h := getenv(HomeEnv)
	if h == "" {
		return ""
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(h, "Library", "Application Support", "flipbot")
	}
	return filepath.Join(append(append([]string{h}, home...), "flipbot")...)
}

// DefaultGamesDir is where game records go by default: $HOME/games on the
// device (HOME is /perm/home/flipbot under gokrazy, so they survive
// restarts and updates), the data directory's games/ on a PC; "" when
// neither is known.
func DefaultGamesDir(getenv func(string) string, onDevice bool) string {
	if onDevice {
		if home := getenv(HomeEnv); home != "" {
			return filepath.Join(home, GamesDirName)
		}
		return ""
	}
	if d := DataDir(getenv); d != "" {
		return filepath.Join(d, GamesDirName)
	}
	return ""
}
