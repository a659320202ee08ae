package appliance

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
)

// The Linux route tables, read to tell whether the device has a default
// route.
const (
	procRoute4 = "/proc/net/route"
	procRoute6 = "/proc/net/ipv6_route"
	// maxRouteBytes bounds the route table read: a device has a handful
	// of routes, a few hundred bytes.
	maxRouteBytes = 64 << 10
)

// networkUp reports whether the device's network is up: an address other
// than loopback and link-local (addrs, from interfaceAddrs) and, where the
// system shows its route tables (Linux), a default route. Without the
// tables (another system) the address alone decides.
func networkUp(addrs []string) bool {
	if len(addrs) == 0 {
		return false
	}
	v4, err4 := readProc(procRoute4)
	v6, err6 := readProc(procRoute6)
	if err4 != nil && err6 != nil {
		return true // no route tables to read: the address decides
	}
	return hasDefaultRoute4(v4) || hasDefaultRoute6(v6)
}

// readProc reads at most maxRouteBytes of a /proc file (their size is 0 to
// stat, so the limit is on the read).
func readProc(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRouteBytes))
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, errors.New("empty route table")
	}
	return b, nil
}

// hasDefaultRoute4 reports whether /proc/net/route's content b holds a
// default route that is up: destination 00000000, mask 00000000, flag
// RTF_UP.
func hasDefaultRoute4(b []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 8 || f[1] != "00000000" || f[7] != "00000000" {
			continue
		}
		if flags, err := strconv.ParseUint(f[3], 16, 32); err == nil && flags&1 != 0 {
			return true
		}
	}
	return false
}

// hasDefaultRoute6 reports whether /proc/net/ipv6_route's content b holds
// a default route that is up and not the kernel's unreachable one:
// destination ::/0 through a device other than lo, flag RTF_UP.
func hasDefaultRoute6(b []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != strings.Repeat("0", 32) || f[1] != "00" || f[9] == "lo" {
			continue
		}
		if flags, err := strconv.ParseUint(f[8], 16, 32); err == nil && flags&1 != 0 {
			return true
		}
	}
	return false
}
