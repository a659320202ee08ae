package search

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestTableAdvisesHugePages checks that the kernel holds the table's memory
// as advised for huge pages: the mapping that contains it carries the "hg"
// flag (MADV_HUGEPAGE) in /proc/self/smaps.
func TestTableAdvisesHugePages(t *testing.T) {
	tb := newTable(16)
	addr := uint64(uintptr(unsafe.Pointer(&tb.words[len(tb.words)/2])))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inside := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uint64
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			inside = lo <= addr && addr < hi
			continue
		}
		if inside && strings.HasPrefix(line, "VmFlags:") {
			require.Contains(t, strings.Fields(line), "hg", "the table's mapping: %s", line)
			return
		}
	}
	require.NoError(t, sc.Err())
	t.Fatal("no mapping holds the table")
}
