package proc

import (
	"os"
	"strconv"
	"strings"
)

// running reports whether pid is a live, non-zombie process.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// fakeOS has no behaviours of its own here.
func fakeOS([]string) int { return 2 }
