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
)

// GamesDirName is the directory of the game records under the home
// directory (device) or the data directory (PC).
const GamesDirName = "games"

// DataDir returns flipbot's data directory on a PC: $XDG_DATA_HOME/flipbot,
// else ~/.local/share/flipbot (~/Library/Application Support/flipbot on
// macOS); "" when neither variable is set.
func DataDir(getenv func(string) string) string {
	if d := getenv(DataHomeEnv); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "flipbot")
	}
	home := getenv(HomeEnv)
	if home == "" {
		return ""
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support", "flipbot")
	}
	return filepath.Join(home, ".local", "share", "flipbot")
}

// ConfigDir returns flipbot's configuration directory on a PC:
// $XDG_CONFIG_HOME/flipbot, else ~/.config/flipbot (~/Library/Application
// Support/flipbot on macOS); "" when neither variable is set.
func ConfigDir(getenv func(string) string) string {
	if d := getenv(ConfigHomeEnv); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "flipbot")
	}
	home := getenv(HomeEnv)
	if home == "" {
		return ""
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support", "flipbot")
	}
	return filepath.Join(home, ".config", "flipbot")
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
