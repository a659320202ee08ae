package appliance

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"strings"
	"time"

	"flipbot.dev/flipbot/appliance/store"
)

// Platform is what differs between the device (gokrazy) and a PC. The
// default for the build is [DefaultPlatform]; tests pass fakes.
type Platform interface {
	// Model names the machine, e.g. "Raspberry Pi 4 Model B Rev 1.5".
	Model() string
	// PageHosts returns the host addresses the pages bind to: the private
	// interface addresses on the device, loopback on a PC.
	PageHosts() ([]string, error)
	// WaitForClock returns once the system clock has been set (NTP), or
	// with ctx's error.
	WaitForClock(ctx context.Context) error
}

// DevicePasswordFiles returns where gokrazy keeps its web UI password on
// the device, in the order they are tried (the first existing file wins):
// the admin password of the token and settings pages.
func DevicePasswordFiles() []string { return []string{"/perm/gokr-pw.txt", "/etc/gokr-pw.txt"} }

// readTrimmed returns a small system file's content without NULs and
// surrounding space, "" when unreadable: read as every file is
// (store.ReadFileLimit: a regular file, no link followed, never blocking,
// at most 64 KiB).
func readTrimmed(path string) string {
	b, err := store.ReadFileLimit(path, store.DefaultMaxBytes)
	if err != nil {
		return ""
	}
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

// pcModel names a PC from the device tree or DMI, else by OS/arch.
func pcModel() string {
	if m := readTrimmed("/proc/device-tree/model"); m != "" {
		return m
	}
	v, p := readTrimmed("/sys/class/dmi/id/sys_vendor"), readTrimmed("/sys/class/dmi/id/product_name")
	if s := strings.TrimSpace(v + " " + p); s != "" {
		return s
	}
	return fmt.Sprintf("computer (%s/%s)", runtime.GOOS, runtime.GOARCH)
}

// systemUptime reads /proc/uptime; 0 when unknown.
func systemUptime() time.Duration {
	f := strings.Fields(readTrimmed("/proc/uptime"))
	if len(f) == 0 {
		return 0
	}
	s, err := strconv.ParseFloat(f[0], 64)
	if err != nil || s < 0 {
		return 0
	}
	return time.Duration(s * float64(time.Second))
}

// interfaceAddrs returns the non-loopback unicast addresses of the up
// interfaces, for people to type (the status page and display).
func interfaceAddrs() []string {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var out []string
	for _, i := range ifs {
		if i.Flags&net.FlagUp == 0 || i.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := i.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ip, _, err := net.ParseCIDR(a.String())
			if err != nil || ip.IsLinkLocalUnicast() {
				continue
			}
			out = append(out, ip.String())
		}
	}
	return out
}

// clockSet reports whether the clock looks set: the Pi boots at 1970.
func clockSet(now time.Time) bool {
	return now.After(time.Unix(60*60*24*365, 0))
}

// waitClockPolling polls the clock every second until it is set.
func waitClockPolling(ctx context.Context, now func() time.Time) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for !clockSet(now()) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for clock: %w", ctx.Err())
		case <-t.C:
		}
	}
	return nil
}
