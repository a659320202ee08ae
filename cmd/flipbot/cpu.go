package main

import (
	"fmt"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"

	"flipbot.dev/flipbot/flipsight"
)

// detectCPU returns the CPU name reported to FlipSight when --cpu-name is
// not given: the model name the OS knows (osCPUName: /proc/cpuinfo on
// Linux, sysctl machdep.cpu.brand_string on macOS, the registry's
// ProcessorNameString on Windows), else the architecture, with the number
// of cores, within FlipSight's 120 characters.
func detectCPU(cores int) string {
	return cpuLabel(osCPUName(), runtime.GOARCH, cores)
}

// cpuLabel is "NAME (N cores)" of the cleaned name, or of arch when the
// name is empty, cut to FlipSight's limit.
func cpuLabel(name, arch string, cores int) string {
	name = cleanCPUName(name)
	if name == "" {
		name = arch
	}
	suffix := fmt.Sprintf(" (%d cores)", cores)
	if room := flipsight.MaxEnvironmentLen - utf8.RuneCountInString(suffix); utf8.RuneCountInString(name) > room {
		name = strings.TrimSpace(string([]rune(name)[:room]))
	}
	return name + suffix
}

// cleanCPUName makes a name from the OS printable and tidy: NULs (a C
// string's end, as sysctl and the registry may leave them) end it,
// control characters become spaces, and runs of spaces (Intel's names
// are padded) become one.
func cleanCPUName(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// parseCPUInfo returns the CPU's name from the text of Linux's
// /proc/cpuinfo: the first "model name" (x86, most arm64), or "Model" or
// "Hardware" where the kernel names the board instead (a Raspberry Pi),
// which wins.
func parseCPUInfo(text string) string {
	var model, hw string
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name":
			if model == "" {
				model = v
			}
		case "Model", "Hardware":
			if hw == "" {
				hw = v
			}
		}
	}
	if hw != "" {
		return hw
	}
	return model
}
