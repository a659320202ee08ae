package web

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHostAllowed(t *testing.T) {
	for host, want := range map[string]bool{
		"192.168.1.23": true, "[fe80::1]": true, "::1": true, "flipbot": true, "FLIPBOT.local": true,
		"flipbot.lan": true, "flipbot.home.arpa": true, "flipbot.local.": true, "localhost": true,
		"": false, "evil.example": false, "flipbot.evil.example": false, "flipbotx.local": false, "local": false,
	} {
		assert.Equal(t, want, hostAllowed(host, "flipbot"), host)
	}
	assert.False(t, hostAllowed("flipbot.local", ""), "no host name: only addresses")
}
