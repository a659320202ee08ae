package appliance

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDefaultRoute: the route tables of Linux as /proc shows them.
func TestDefaultRoute(t *testing.T) {
	const head4 = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
	v4 := head4 + "eth0\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n" +
		"eth0\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
	noDefault4 := head4 + "eth0\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
	down4 := head4 + "eth0\t00000000\t0101A8C0\t0002\t0\t0\t0\t00000000\t0\t0\t0\n"
	zero := strings.Repeat("0", 32)
	v6 := zero + " 00 " + zero + " 00 fe800000000000000000000000000001 00000400 00000003 00000000 00000003     eth0\n"
	unreachable6 := zero + " 00 " + zero + " 00 " + zero + " ffffffff 00000001 00000000 00200200       lo\n"
	assert.True(t, hasDefaultRoute4([]byte(v4)))
	assert.False(t, hasDefaultRoute4([]byte(noDefault4)))
	assert.False(t, hasDefaultRoute4([]byte(down4)), "a route not up")
	assert.True(t, hasDefaultRoute6([]byte(v6)))
	assert.False(t, hasDefaultRoute6([]byte(unreachable6)), "the kernel's unreachable default on lo")
	assert.False(t, networkUp(nil), "no address, no network")
}

// FuzzDefaultRoute: any route table content gives an answer, never a panic.
func FuzzDefaultRoute(f *testing.F) {
	f.Add([]byte("eth0\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"))
	f.Add([]byte(strings.Repeat("0", 32) + " 00 x 00 y 1 1 1 zz eth0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		hasDefaultRoute4(b)
		hasDefaultRoute6(b)
	})
}
