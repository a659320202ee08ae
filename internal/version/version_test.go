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
