package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	if looksSecret(name) {
		return false
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

// maxNamed bounds the variable names an envNote lists.
const maxNamed = 8

// genericParts are name parts too common to tie a variable to an engine
// (JAVA_HOME belongs to java by JAVA, not by HOME).
var genericParts = map[string]bool{
	"home": true, "path": true, "dir": true, "root": true, "lib": true, "bin": true, "data": true,
	"config": true, "conf": true, "opts": true, "options": true, "file": true, "env": true, "var": true,
	"tmp": true, "user": true, "level": true, "mode": true, "debug": true, "log": true,
}

// libraryPrefixes name variables of the libraries native engines are
// often built on (GPUs, BLAS, the dynamic loader), which an engine may
// need whatever its name.
var libraryPrefixes = []string{"CUDA", "NVIDIA_", "ROCM_", "HIP_", "MKL_", "OPENBLAS_", "GLIBC_", "LD_", "DYLD_"}

// runtimePrefixes name the variables of a runtime, by a word of the
// command that runs on it ("java -jar engine.jar": JAVA_HOME).
var runtimePrefixes = map[string][]string{
	"java": {"JAVA", "JDK_"}, "node": {"NODE_"}, "dotnet": {"DOTNET_"}, "julia": {"JULIA_"},
	"wine": {"WINE"}, "python": {"CONDA_", "VIRTUAL_"}, "python3": {"CONDA_", "VIRTUAL_"},
}

// ownNote is note (envNote's) when it names variables that look like the
// engine's own, "" when it only counts the others.
func ownNote(note string) string {
	if strings.HasPrefix(note, "the engine environment filter dropped ") {
		return note
	}
	return ""
}

// envNote says what an engine's environment child lacks of ours, parent
// (KEY=VALUE entries both), for an engine that failed to start or exited
// at once: the dropped variables that look like the engine's own (a part
// of the name, split at "_", is a word of one of command's file names, the
// program's or a script's; or the name is a library's, CUDA_VISIBLE_DEVICES,
// or that of a runtime the command names, JAVA_HOME for java) by name, at most maxNamed of them, and how
// many others were dropped. Names only, never a value; never the token's
// name nor one that looks secret. "" when nothing was dropped.
func envNote(parent, child, command []string) string {
	passed := map[string]bool{}
	for _, kv := range child {
		if name, _, ok := strings.Cut(kv, "="); ok {
			passed[name] = true
		}
	}
	words := commandWords(command)
	var own []string
	others := 0
	seen := map[string]bool{}
	for _, kv := range parent {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || seen[name] || passed[name] || name == tokenVar || name == ExtraEnvVar || looksSecret(name) {
			continue
		}
		seen[name] = true
		if enginesOwn(name, words) {
			own = append(own, name)
		} else {
			others++
		}
	}
	slices.Sort(own)
	if len(own) > maxNamed {
		others += len(own) - maxNamed
		own = own[:maxNamed]
	}
	switch {
	case len(own) > 0 && others > 0:
		return fmt.Sprintf("the engine environment filter dropped %s and %d other %s; %s=%s passes them",
			strings.Join(own, ", "), others, variables(others), ExtraEnvVar, strings.Join(own, ","))
	case len(own) > 0:
		return fmt.Sprintf("the engine environment filter dropped %s; %s=%s passes them",
			strings.Join(own, ", "), ExtraEnvVar, strings.Join(own, ","))
	case others > 0:
		return fmt.Sprintf("the engine environment filter passed it none of %d other %s of ours; %s=NAME,… passes those it needs",
			others, variables(others), ExtraEnvVar)
	}
	return ""
}

func variables(n int) string {
	if n == 1 {
		return "variable"
	}
	return "variables"
}

// looksSecret reports whether a variable's name contains a secret word.
func looksSecret(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range envSecretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// commandWords returns the words (lower case, 3 letters or more) of the
// file names in command: "/opt/edax/bin/lEdax-x64-modern" gives "ledax",
// "x64" and "modern"; "python3 my_bot.py" gives "python3", "my" is too
// short, "bot".
func commandWords(command []string) []string {
	var words []string
	for _, c := range command {
		base := strings.ToLower(filepath.Base(strings.ReplaceAll(c, `\`, "/")))
		base = strings.TrimSuffix(base, filepath.Ext(base))
		for _, w := range strings.FieldsFunc(base, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) {
			if len(w) >= 3 && !genericParts[w] {
				words = append(words, w)
			}
		}
	}
	return words
}

// enginesOwn reports whether a variable looks like the engine's own: a
// library's, a runtime's that words name, or a part of its name is one of
// words, or holds one or is held in one (EDAX in "ledax").
func enginesOwn(name string, words []string) bool {
	up := strings.ToUpper(name)
	hasPrefix := func(prefixes []string) bool {
		return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(up, p) })
	}
	if hasPrefix(libraryPrefixes) {
		return true
	}
	for _, w := range words {
		if hasPrefix(runtimePrefixes[w]) {
			return true
		}
	}
	for _, part := range strings.Split(strings.ToLower(name), "_") {
		if len(part) < 3 || genericParts[part] {
			continue
		}
		for _, w := range words {
			if part == w || len(part) >= 4 && strings.Contains(w, part) || len(w) >= 4 && strings.Contains(part, w) {
				return true
			}
		}
	}
	return false
}
