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

func TestFirstSignalDrainsSecondQuits(t *testing.T) {
	ctx, quit, stop := signalContext(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer stop()
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGTERM did not cancel the context")
	}
	select {
	case <-quit:
		t.Fatal("the first signal asked to quit at once")
	default:
	}
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGINT))
	select {
	case <-quit:
	case <-time.After(5 * time.Second):
		t.Fatal("the second signal did not ask to quit")
	}
}
