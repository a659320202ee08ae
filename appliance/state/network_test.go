package state

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNetworkCause: the Go errors of a failed request read as a short
// cause naming the host.
func TestNetworkCause(t *testing.T) {
	const get = `Get "https://othelloclub.com/api/v1/bot/poll": `
	for _, c := range []struct{ msg, want string }{
		{get + "dial tcp 203.0.113.5:443: connect: connection refused; retrying in 2s", "connection refused by othelloclub.com"},
		{get + "dial tcp: lookup othelloclub.com on 192.168.1.1:53: no such host", "the name othelloclub.com does not resolve"},
		{"dial tcp: lookup othelloclub.com on 192.168.1.1:53: server misbehaving", "the name server does not answer for othelloclub.com"},
		{get + "dial tcp 203.0.113.5:443: connect: network is unreachable", "no route to othelloclub.com"},
		{get + "dial tcp 203.0.113.5:443: i/o timeout", "othelloclub.com does not answer (timed out)"},
		{get + "read tcp 192.168.1.23:51234->203.0.113.5:443: read: connection reset by peer", "the connection to othelloclub.com was reset"},
		{get + "tls: failed to verify certificate: x509: certificate signed by unknown authority", "the secure connection to othelloclub.com failed (TLS certificate or handshake)"},
		{get + "EOF", "othelloclub.com closed the connection"},
		{"", "the connection to the server failed"},
		{`Get "https://<script>/x": boom`, "the connection to the server failed"},
	} {
		assert.Equal(t, c.want, NetworkCause(c.msg), c.msg)
	}
}

// TestUnreachableIsNotNoNetwork: a bot that cannot reach FlipSight reads
// "No network" when the device has no network and "FlipSight
// unreachable", with a sentence naming the cause, when it has. Before,
// both read "No network" with the raw Go error.
func TestUnreachableIsNotNoNetwork(t *testing.T) {
	const raw = `Get "https://othelloclub.com/api/v1/bot/poll": dial tcp 203.0.113.5:443: connect: connection refused; retrying in 2s`
	for _, c := range []struct {
		up             bool
		text, sentence string
	}{
		{false, "No network", "The device has no network (no address or no default route), so FlipSight cannot be reached (connection refused by othelloclub.com). Check the cable or the Wi-Fi and the router."},
		{true, "FlipSight unreachable", "FlipSight cannot be reached (connection refused by othelloclub.com); the device's network is up."},
	} {
		h := NewHub(nil)
		h.Update(func(st *Status) {
			st.Phase, st.Token, st.Storage.OK = PhaseRunning, TokenStored, true
			st.NetworkDown, st.Detail = true, raw
			st.Device.NetworkUp = c.up
		})
		st := h.Snapshot()
		assert.Equal(t, KindNoNetwork, st.Kind, "the same state, LEDs and screen")
		assert.Equal(t, c.text, st.StateText)
		assert.Equal(t, c.sentence, st.NetworkSentence())
	}
	online := Status{Kind: KindOnlineIdle, Device: Device{NetworkUp: true}}
	assert.Empty(t, online.NetworkSentence())
	assert.False(t, online.Unreachable())
}

// FuzzNetworkCause: any error text gives a short cause, never a panic, and
// nothing of the text but a host name.
func FuzzNetworkCause(f *testing.F) {
	f.Add(`Get "https://othelloclub.com/api": dial tcp 1.2.3.4:443: connect: connection refused`)
	f.Add("lookup x: no such host")
	f.Add(`"http`)
	f.Fuzz(func(t *testing.T, msg string) {
		c := NetworkCause(msg)
		assert.LessOrEqual(t, len(c), 330)
		assert.False(t, strings.ContainsAny(c, "<>\"\n"), c)
	})
}
