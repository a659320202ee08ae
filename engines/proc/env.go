package proc

import (
	"os"
	"strings"
)

// envKeep are the variables an engine process gets from ours: what
// programs need to find themselves, their libraries and their language
// (PATH, HOME, locale, time zone, temporary directory, Python's and
// OpenMP's settings). Nothing else passes: not FS_BOT_TOKEN, not a
// cloud key, not whatever else the parent holds.
var envKeep = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TZ",
	"LANG", "LANGUAGE", "TMPDIR", "TEMP", "TMP",
	"LD_LIBRARY_PATH", "VIRTUAL_ENV", "CONDA_PREFIX", "GOMAXPROCS",
}

// envKeepPrefix are kept by prefix (LC_ALL, PYTHONPATH, OMP_NUM_THREADS).
var envKeepPrefix = []string{"LC_", "PYTHON", "OMP_"}

// envSecretWords mark a variable as a secret even when its name is kept
// by prefix (PYTHON_KEYRING_PASSWORD).
var envSecretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "KEY", "AUTH", "COOKIE", "SESSION"}

// ExtraEnvVar names the variable that lists, comma-separated, further
// variables of ours that engines get (an engine that needs
// CUDA_VISIBLE_DEVICES, say): the owner's explicit choice. FS_BOT_TOKEN is
// never passed, listed or not.
const ExtraEnvVar = "FLIPBOT_ENGINE_ENV"

// tokenVar is the bot token's variable, config.TokenEnv (a test checks
// they agree; engines/proc does not import config, which sits beside it).
const tokenVar = "FS_BOT_TOKEN"

// EngineEnv returns the environment of an engine process built from
// parent (KEY=VALUE entries, as os.Environ returns them): the entries
// envKeep and envKeepPrefix name and none whose name contains a secret
// word, plus those ExtraEnvVar lists, and never FS_BOT_TOKEN.
func EngineEnv(parent []string) []string {
	extra := map[string]bool{}
	for _, kv := range parent {
		if v, ok := strings.CutPrefix(kv, ExtraEnvVar+"="); ok {
			for _, n := range strings.Split(v, ",") {
				extra[strings.TrimSpace(n)] = true
			}
		}
	}
	out := []string{}
	for _, kv := range parent {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || name == tokenVar || !(extra[name] || keepEnv(name)) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func keepEnv(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range envSecretWords {
		if strings.Contains(up, w) {
			return false
		}
	}
	for _, k := range envKeep {
		if name == k {
			return true
		}
	}
	for _, p := range envKeepPrefix {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// defaultEnv is the environment of a process whose Config.Env is nil.
func defaultEnv() []string { return EngineEnv(os.Environ()) }
