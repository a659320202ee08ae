package search

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// adviseHugePages asks Linux to back the table with huge pages (2 MiB on
// amd64 and arm64) where transparent huge pages are on "madvise": the
// table's probes land anywhere in it, and with 4 KiB pages nearly every
// probe of a table of tens of MiB misses the TLB as well as the cache. The
// advice is only a hint: an error (an old kernel, huge pages off) changes
// nothing but the speed.
func adviseHugePages(words []atomic.Uint64) {
	if len(words) == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
}
