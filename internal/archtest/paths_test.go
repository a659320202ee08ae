package archtest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// machinePath matches an absolute path of a build machine's own folders:
// a folder "work" at the root (this project's machines), "root" or
// "Users" (a home). Paths of the device (under perm), of the system
// (under usr or proc) and examples under tmp are not a machine's and are
// allowed.
var machinePath = regexp.MustCompile("(^|[\\s`'\"(=:,])/(work|root|Users)/")

// machinePaths returns the 1-based numbers of the lines of text that name
// a build machine's path.
func machinePaths(text []byte) []int {
	var lines []int
	for i, line := range bytes.Split(text, []byte("\n")) {
		if machinePath.Match(line) {
			lines = append(lines, i+1)
		}
	}
	return lines
}

func TestMachinePaths(t *testing.T) {
	// The examples are put together here, so that this file names no
	// machine's path itself.
	w, r, u := "/"+"work/", "/"+"root/", "/"+"Users/"
	perm, usr, tmp, home := "/"+"perm/", "/"+"usr/", "/"+"tmp/", "/"+"home/"
	for _, tc := range []struct {
		text string
		want []int
	}{
		{"scripts in `" + w + "scratch-end/`", []int{1}},
		{"ok\n-out " + w + "x/probcut.go (4m45s)", []int{2}},
		{"S=" + r + "scratch", []int{1}},
		{u + "me/edax", []int{1}},
		{perm + "home/flipbot/token, " + usr + "bin/chromium, " + tmp + "flipbot-home", nil},
		{"a" + w + "b and http://x" + w + "y", nil},
		{"HOME=" + home + "u in a test", nil},
	} {
		assert.Equal(t, tc.want, machinePaths([]byte(tc.text)), tc.text)
	}
}

// TestNoMachinePaths: no file of the tree names a path of the machine it
// was written on (a scratch folder means nothing to a reader, and a
// command must run from the repository).
func TestNoMachinePaths(t *testing.T) {
	root, err := FindRoot(".")
	require.NoError(t, err)
	skipDirs := map[string]bool{".git": true, "bin": true, "build": true, "dist": true, "out": true, "node_modules": true}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || d.Name() == ".git" { // a worktree's .git file names the main clone
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 4<<20 {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(data, 0) >= 0 {
			return nil // not text
		}
		rel, _ := filepath.Rel(root, path)
		for _, n := range machinePaths(data) {
			t.Errorf("%s:%d names a path of a build machine: give it relative to the repository", filepath.ToSlash(rel), n)
		}
		return nil
	})
	require.NoError(t, err)
}
