// Package winetest runs Windows builds of flipbot's programs under Wine in
// tests, on linux/amd64: a Wine prefix of the test's own, the program
// built for windows/amd64, and the command that runs it.
//
// Files: winetest.go ([Wine], [New], [Build]), bcryptprimitives.go (the
// DLL stand-in older Wine needs). A leaf for tests: it imports nothing of
// the module, and only _test.go files import it.
package winetest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Wine is a Wine prefix of one test's own.
type Wine struct {
	// Path is the wine program.
	Path string
	// Prefix is the prefix's directory (WINEPREFIX).
	Prefix string
	// Env is our environment with the prefix's variables: WINEPREFIX,
	// no debug output, no offer to install Mono or Gecko.
	Env []string
}

// New makes a Wine prefix in a directory of t's, or skips t: with -short,
// off linux/amd64, when wine is not found, or when this Wine has no
// bcryptprimitives.dll (Go's Windows runtime loads it at start-up; Wine
// 9 and later have it) and x86_64-w64-mingw32-gcc is not found to build a
// stand-in. Every process of the prefix is killed at t's cleanup
// (wineserver -k).
func New(t testing.TB) *Wine {
	t.Helper()
	if testing.Short() {
		t.Skip("SKIPPED: runs Windows builds under Wine; skipped with -short")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("SKIPPED: Wine runs the windows/amd64 builds on linux/amd64 only")
	}
	path, err := exec.LookPath("wine")
	if err != nil {
		t.Skip("SKIPPED: wine not found")
	}
	w := &Wine{Path: path, Prefix: filepath.Join(t.TempDir(), "prefix")}
	w.Env = append(os.Environ(), "WINEPREFIX="+w.Prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=d")
	t.Cleanup(func() {
		c := exec.Command("wineserver", "-k")
		c.Env = w.Env
		_ = c.Run()
	})
	w.run(t, 5*time.Minute, path, "wineboot", "--init")
	w.run(t, time.Minute, "wineserver", "-w")
	system32 := filepath.Join(w.Prefix, "drive_c", "windows", "system32")
	if _, err := os.Stat(filepath.Join(system32, "bcryptprimitives.dll")); err != nil {
		cc, err := exec.LookPath("x86_64-w64-mingw32-gcc")
		if err != nil {
			t.Skip("SKIPPED: this Wine has no bcryptprimitives.dll, which Go's Windows runtime needs (Wine 9 and later have it), and x86_64-w64-mingw32-gcc is not found to build a stand-in")
		}
		src := filepath.Join(t.TempDir(), "bcryptprimitives.c")
		if err := os.WriteFile(src, []byte(bcryptPrimitivesC), 0o600); err != nil {
			t.Fatal(err)
		}
		w.run(t, time.Minute, cc, "-shared", "-O2", "-o", filepath.Join(system32, "bcryptprimitives.dll"), src, "-ladvapi32")
	}
	return w
}

func (w *Wine) run(t testing.TB, timeout time.Duration, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.Env = w.Env
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// Command returns the command that runs the Windows program exe with args
// under this Wine.
func (w *Wine) Command(ctx context.Context, exe string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, w.Path, append([]string{exe}, args...)...)
	c.Env = w.Env
	return c
}

// WindowsPath returns the path by which Windows programs under Wine see
// the file path (drive Z: is the root).
func WindowsPath(path string) string { return "Z:" + filepath.ToSlash(path) }

// Build builds the package pkg (an import path) for windows/amd64 into
// dir and returns the program's path; test builds a test binary (go test
// -c) instead of a command.
func Build(t testing.TB, dir, pkg string, test bool) string {
	t.Helper()
	out := filepath.Join(dir, filepath.Base(pkg)+".exe")
	args := []string{"build", "-o", out, pkg}
	if test {
		out = filepath.Join(dir, filepath.Base(pkg)+".test.exe")
		args = []string{"test", "-c", "-o", out, pkg}
	}
	c := exec.Command("go", args...)
	c.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return out
}
