// Package version names the build of a flipbot command: the version that
// `make dist` stamps in with the linker (`git describe --always --dirty`),
// else the module version and VCS revision that the go command records when
// it builds inside a git clone, else "devel".
//
// Files: version.go ([String]).
//
// It imports nothing of the module (the standard library only).
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// stamp is set at link time by make dist:
//
//	go build -ldflags "-X flipbot.dev/flipbot/internal/version.stamp=VERSION"
//
// and never written at run time.
var stamp string

// String returns the build's version, e.g. "8a82047-dirty" from make dist,
// "v0.0.0-20261207000850-8a8204712345 8a8204712345+dirty" from go build in a
// clone, or "devel".
func String() string { return describe(stamp, debug.ReadBuildInfo) }

// Line is String with the toolchain and platform, as the commands' version
// subcommands print it: "flipbot 8a82047 (go1.26.8 linux/amd64)".
func Line(command string) string {
	return command + " " + String() + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}

// describe is String with the stamp and the build info given.
func describe(stamp string, info func() (*debug.BuildInfo, bool)) string {
	if s := strings.TrimSpace(stamp); s != "" {
		return s
	}
	bi, ok := info()
	if !ok || bi == nil {
		return "devel"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	var parts []string
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		parts = append(parts, v)
	}
	if rev != "" {
		parts = append(parts, rev+dirty)
	}
	if len(parts) == 0 {
		return "devel"
	}
	return strings.Join(parts, " ")
}
