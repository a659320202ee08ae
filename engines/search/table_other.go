//go:build !linux

package search

import "sync/atomic"

// adviseHugePages does nothing outside Linux (table_linux.go).
func adviseHugePages([]atomic.Uint64) {}
