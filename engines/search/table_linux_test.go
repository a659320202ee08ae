package search

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestTableAdvisesHugePages checks that the kernel holds the table's memory
// as advised for huge pages: the mapping that contains it carries the "hg"
// flag (MADV_HUGEPAGE) in /proc/self/smaps. A kernel built without
// transparent huge pages refuses the advice (EINVAL): the test says SKIPPED.
func TestTableAdvisesHugePages(t *testing.T) {
	probe := make([]byte, 4<<20)
	if err := unix.Madvise(probe[:2<<20], unix.MADV_HUGEPAGE); err != nil {
		// The slice may start off a page boundary: try the next one.
		off := (4096 - int(uintptr(unsafe.Pointer(&probe[0])))%4096) % 4096
		if err := unix.Madvise(probe[off:off+2<<20], unix.MADV_HUGEPAGE); err != nil {
			t.Skipf("SKIPPED: this kernel refuses MADV_HUGEPAGE: %v", err)
		}
	}
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
