package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"
)

// startProfile starts the CPU profile into path and returns its stop.
func startProfile(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// writeHeapProfile writes the heap profile, after a GC, to
// out/heap/SECONDS.pprof.
func writeHeapProfile(out string, at time.Duration) error {
	dir := filepath.Join(out, "heap")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%05.0f.pprof", at.Seconds())))
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("heap profile: %w", err)
	}
	return f.Close()
}
