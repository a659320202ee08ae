//go:build unix

package main

import (
	"context"
	"io"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFirstSignalCancels(t *testing.T) {
	ctx, stop := signalContext(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer stop()
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGTERM did not cancel the context")
	}
}
