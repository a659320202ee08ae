package version

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDescribe(t *testing.T) {
	info := func(version string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Version: version}, Settings: settings}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "8a8204712345678901234567890123456789abcd"}
	modified := debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	for _, tc := range []struct {
		name  string
		stamp string
		info  func() (*debug.BuildInfo, bool)
		want  string
	}{
		{"the stamp of make dist wins", "v1.2.0-3-g8a82047-dirty", info("v0.0.0-x", rev), "v1.2.0-3-g8a82047-dirty"},
		{"a blank stamp is no stamp", " \n", info("(devel)", rev), "8a8204712345"},
		{"module version and revision", "", info("v0.0.0-20261207000850-8a8204712345", rev), "v0.0.0-20261207000850-8a8204712345 8a8204712345"},
		{"modified tree", "", info("(devel)", rev, modified), "8a8204712345+dirty"},
		{"no VCS info", "", info("(devel)"), "devel"},
		{"no build info", "", none, "devel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, describe(tc.stamp, tc.info))
		})
	}
}

func TestLineNamesCommandAndPlatform(t *testing.T) {
	l := Line("flipbot")
	assert.Regexp(t, `^flipbot \S.* \(go\S+ \w+/\w+\)$`, l)
}

func TestDetails(t *testing.T) {
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want []string
	}{
		{"stamped", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "flipbot.dev/flipbot", Version: "v1.4.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "8a82047c0ffee"}, {Key: "vcs.time", Value: "2026-12-06T23:50:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			[]string{"flipbot v1 (go)\n", "module   flipbot.dev/flipbot v1.4.0", "revision 8a82047c0ffee (2026-12-06T23:50:00Z, modified)", "go       go1.26.0 "}},
		{"clean tree", &debug.BuildInfo{Main: debug.Module{Path: "flipbot.dev/flipbot", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}},
			[]string{"module   flipbot.dev/flipbot (devel)\n", "revision abc\n"}},
		{"no VCS", &debug.BuildInfo{Main: debug.Module{Path: "flipbot.dev/flipbot", Version: "(devel)"}},
			[]string{"revision unknown (built without VCS information)"}},
		{"no build info", nil, []string{"module   flipbot.dev/flipbot (unknown)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := details("flipbot v1 (go)", tt.bi)
			for _, w := range tt.want {
				assert.Contains(t, got, w)
			}
		})
	}
}
