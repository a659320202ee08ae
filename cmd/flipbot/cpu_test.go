package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/flipsight"
)

func TestParseCPUInfo(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"x86", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz\n" +
			"processor\t: 1\nmodel name\t: Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz\n", "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz"},
		{"raspberry pi: the board wins", "processor\t: 0\nmodel name\t: ARMv7 Processor rev 3 (v7l)\nHardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n",
			"BCM2835"},
		{"arm64 without a model name", "processor\t: 0\nBogoMIPS\t: 108.00\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0\n", "Raspberry Pi 5 Model B Rev 1.0"},
		{"nothing", "processor\t: 0\nflags\t: fpu\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, parseCPUInfo(tt.text)) })
	}
}

// TestCleanCPUName: the names that sysctl (macOS) and the registry
// (Windows) give, as they come.
func TestCleanCPUName(t *testing.T) {
	tests := []struct{ name, raw, want string }{
		{"apple silicon (sysctl)", "Apple M2 Pro", "Apple M2 Pro"},
		{"sysctl with its NUL", "Apple M1\x00", "Apple M1"},
		{"intel mac (sysctl)", "Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz\n", "Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz"},
		{"windows registry, padded", "Intel(R) Core(TM) i5-4590 CPU @ 3.30GHz        ", "Intel(R) Core(TM) i5-4590 CPU @ 3.30GHz"},
		{"windows registry, leading blanks", "       Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz", "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz"},
		{"amd (registry)", "AMD Ryzen 9 7950X 16-Core Processor            \x00garbage", "AMD Ryzen 9 7950X 16-Core Processor"},
		{"control characters", "Evil\x1b[31m CPU\r\n", "Evil [31m CPU"},
		{"invalid UTF-8", "CPU \xff\xfe X", "CPU X"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, cleanCPUName(tt.raw)) })
	}
}

func TestCPULabel(t *testing.T) {
	assert.Equal(t, "Apple M2 Pro (12 cores)", cpuLabel("Apple M2 Pro\x00", "arm64", 12))
	assert.Equal(t, "arm64 (4 cores)", cpuLabel("  \x00", "arm64", 4), "no name: the architecture")
	long := cpuLabel(strings.Repeat("é", 300), "amd64", 128)
	assert.LessOrEqual(t, utf8.RuneCountInString(long), flipsight.MaxEnvironmentLen, "within FlipSight's limit")
	assert.True(t, strings.HasSuffix(long, " (128 cores)"))
}

func FuzzCleanCPUName(f *testing.F) {
	f.Add("Intel(R) Core(TM) i5-4590 CPU @ 3.30GHz   \x00")
	f.Add("Apple M1")
	f.Fuzz(func(t *testing.T, raw string) {
		s := cpuLabel(raw, "amd64", 8)
		if !utf8.ValidString(s) || utf8.RuneCountInString(s) > flipsight.MaxEnvironmentLen {
			t.Fatalf("label %q: invalid or over the limit", s)
		}
		if strings.ContainsAny(s, "\x00\n\r\t") {
			t.Fatalf("label %q has control characters", s)
		}
	})
}
