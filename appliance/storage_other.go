//go:build !unix

package appliance

// freeBytes is unknown off Unix.
func freeBytes(string) uint64 { return 0 }
