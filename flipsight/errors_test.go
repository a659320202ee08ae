package flipsight

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIsNetwork is the one rule for "no network": every failure to get an
// answer is one, every answer (and every call not made) is not.
func TestIsNetwork(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	request := func(err error) error { return &url.Error{Op: "Post", URL: "https://othelloclub.com/x", Err: err} }
	tests := []struct {
		name    string
		err     error
		network bool
	}{
		{"no error", nil, false},
		{"connection refused", fmt.Errorf("agent_poll: %w", request(refused)), true},
		{"DNS lookup failed", request(&net.DNSError{Err: "no such host", Name: "othelloclub.com"}), true},
		{"TLS certificate not trusted", request(x509.UnknownAuthorityError{}), true},
		{"request timed out", fmt.Errorf("agent_poll: %w", context.DeadlineExceeded), true},
		{"connection cut in the middle of an answer", fmt.Errorf("decode: %w", io.ErrUnexpectedEOF), true},
		{"invalid bot credential (401)", &APIError{Op: ActionPoll, Status: http.StatusUnauthorized, Code: CodeInvalidCredential}, false},
		{"storage unavailable (503): the server answered", &APIError{Op: ActionPoll, Status: http.StatusServiceUnavailable, Code: CodeStorageUnavailable}, false},
		{"answer too large", fmt.Errorf("agent_poll: %w", ErrResponseTooLarge), false},
		{"bad stream event", fmt.Errorf("stream: %w", ErrBadEvent), false},
		{"stream silent past its deadline", ErrStreamSilent, false},
		{"URL refused before sending the token", fmt.Errorf("new client: %w", ErrRefusedURL), false},
		{"no token", ErrNoToken, false},
		{"call cancelled", request(context.Canceled), false},
		{"some other error", errors.New("boom"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.network, IsNetwork(tc.err))
		})
	}
}

// A real request to a server that is gone is a network failure; one the
// server answers is not.
func TestIsNetworkOfRealCalls(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"ok":false,"error":"bot match storage unavailable"}`))
	}))
	c, err := NewClient(Config{APIURL: ts.URL + "/flipsight/bot_match_api.php", Token: testToken(t)})
	require.NoError(t, err)
	_, err = c.Poll(context.Background(), nil)
	require.Error(t, err)
	assert.False(t, IsNetwork(err), "the server answered: %v", err)
	ts.Close()
	_, err = c.Poll(context.Background(), nil)
	require.Error(t, err)
	assert.True(t, IsNetwork(err), "nothing listens any more: %v", err)
}
