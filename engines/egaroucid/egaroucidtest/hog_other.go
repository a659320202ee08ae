//go:build !linux

package egaroucidtest

import "runtime"

// hog allocates n bytes and writes every page (no MAP_POPULATE here).
func hog(n int) ([]byte, error) {
	b := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		b[i] = 1
	}
	return b, nil
}

func keep(b []byte) { runtime.KeepAlive(b) }
