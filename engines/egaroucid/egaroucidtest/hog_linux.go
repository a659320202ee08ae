package egaroucidtest

import (
	"fmt"
	"runtime"
	"syscall"
)

// hog maps n bytes of anonymous memory with every page faulted in by the
// kernel (MAP_POPULATE), so that they count in the process's resident
// size without Go code touching them (under the race detector a loop would
// touch its shadow memory too).
func hog(n int) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap %d bytes: %w", n, err)
	}
	return b, nil
}

func keep(b []byte) { runtime.KeepAlive(b) }
