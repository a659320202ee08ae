// Package version names the build of a flipbot command: the version that
// `make dist` stamps in with the linker (`git describe --always --dirty`),
// else the module version and VCS revision that the go command records when
// it builds inside a git clone, else "devel".
//
// Files: version.go ([String], [Line], [Details]).
//
// It imports nothing of the module (the standard library only).
package version

import (
	"fmt"
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
func Line(command string) string { return line(command, String()) }

// line is Line with the version given.
func line(command, version string) string {
	return command + " " + version + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}

// Details is Line and, a line each, the main module's path and version,
// the VCS revision, its time and whether the tree was modified (as go
// build stamps them), the Go version and the platform: what `flipbot
// version` prints.
func Details(command string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	v := describe(stamp, func() (*debug.BuildInfo, bool) { return bi, ok })
	return details(line(command, v), bi)
}

// details is Details with its first line and the build info (nil when
// none) given.
func details(line string, bi *debug.BuildInfo) string {
	version, path, goVersion := "(unknown)", "flipbot.dev/flipbot", runtime.Version()
	settings := map[string]string{}
	if bi != nil {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		if bi.Main.Path != "" {
			path = bi.Main.Path
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	rev := "unknown (built without VCS information)"
	if r := settings["vcs.revision"]; r != "" {
		rev = r
		var notes []string
		if t := settings["vcs.time"]; t != "" {
			notes = append(notes, t)
		}
		if settings["vcs.modified"] == "true" {
			notes = append(notes, "modified")
		}
		if len(notes) > 0 {
			rev += " (" + strings.Join(notes, ", ") + ")"
		}
	}
	return fmt.Sprintf("%s\nmodule   %s %s\nrevision %s\ngo       %s %s/%s\n",
		line, path, version, rev, goVersion, runtime.GOOS, runtime.GOARCH)
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
