package archtest

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inlineLink matches a markdown inline link or image, [text](target) or
// [text](target "title"), capturing the target. Text with nested brackets
// one level deep ([`a[i]`](x)) is matched too.
var inlineLink = regexp.MustCompile(`\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\)`)

// refDef matches a link reference definition: [label]: target.
var refDef = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)

// heading matches an ATX heading, capturing its text.
var heading = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)

// mdLink is one relative link found in a markdown file.
type mdLink struct {
	line   int
	target string
}

// scanMarkdown returns the relative links of a markdown text and the
// anchors of its headings, as GitHub makes them. Links and headings in
// fenced code blocks and inside code spans are not links and are skipped.
func scanMarkdown(text []byte) (links []mdLink, anchors map[string]bool) {
	anchors = map[string]bool{}
	seen := map[string]int{}
	fence := ""
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			a := anchorOf(m[1])
			if k, dup := seen[a]; dup {
				seen[a] = k + 1
				a = fmt.Sprintf("%s-%d", a, k+1)
			} else {
				seen[a] = 0
			}
			anchors[a] = true
		}
		if m := refDef.FindStringSubmatch(line); m != nil {
			if isRelative(m[1]) {
				links = append(links, mdLink{n, m[1]})
			}
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(withoutCodeSpans(line), -1) {
			if isRelative(m[1]) {
				links = append(links, mdLink{n, m[1]})
			}
		}
	}
	return links, anchors
}

// withoutCodeSpans blanks the code spans of a line (`…`), whose text is
// not markdown.
func withoutCodeSpans(line string) string {
	var b strings.Builder
	in := false
	for _, r := range line {
		if r == '`' {
			in = !in
			b.WriteRune(r)
			continue
		}
		if in {
			b.WriteRune(' ')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isRelative reports whether a link target points into the repository: not
// a URL with a scheme (https:, mailto:) and not a protocol-relative one.
func isRelative(target string) bool {
	if strings.HasPrefix(target, "//") {
		return false
	}
	u, err := url.Parse(target)
	return err != nil || u.Scheme == ""
}

// anchorOf returns the anchor GitHub gives a heading: its text without
// markup, lower-cased, with every character that is not a letter, digit,
// space, hyphen or underscore dropped and spaces turned into hyphens.
func anchorOf(text string) string {
	text = inlineLink.ReplaceAllStringFunc(text, func(s string) string {
		return s[1:strings.Index(s, "](")] // a link's text only
	})
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

func TestScanMarkdown(t *testing.T) {
	text := "# Engines: the `search` package\n" +
		"## Time planning\n" +
		"## Time planning\n" +
		"See [the solver](search/end8.go), [figures](../docs/m.md#ffo-4059), [here](#time-planning-1).\n" +
		"![board](img/b.png \"a board\") and [web](https://example.com/x.md), [mail](mailto:a@b).\n" +
		"`[not](a-link.md)` but [`a[i]`](code.md)\n" +
		"```\n[in a fence](fenced.md)\n# not a heading\n```\n" +
		"[ref]: docs/ref.md\n" +
		"### FFO #40–59 ([run](x.md))\n"
	links, anchors := scanMarkdown([]byte(text))
	assert.Equal(t, []mdLink{
		{4, "search/end8.go"}, {4, "../docs/m.md#ffo-4059"}, {4, "#time-planning-1"},
		{5, "img/b.png"}, {6, "code.md"}, {11, "docs/ref.md"}, {12, "x.md"},
	}, links)
	assert.Equal(t, map[string]bool{
		"engines-the-search-package": true, "time-planning": true, "time-planning-1": true,
		"ffo-4059-run": true,
	}, anchors)
}

// TestMarkdownLinksResolve: every relative link in the repository's
// markdown files names a file or folder that exists, and a #fragment on a
// markdown file names one of its headings. A README that points to a moved
// or renamed measurement fails here rather than in a reader's browser.
func TestMarkdownLinksResolve(t *testing.T) {
	root, err := FindRoot(".")
	require.NoError(t, err)
	skipDirs := map[string]bool{".git": true, "bin": true, "build": true, "dist": true, "out": true, "node_modules": true}
	type file struct {
		links   []mdLink
		anchors map[string]bool
	}
	files := map[string]file{} // by path relative to root, slash-separated
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		links, anchors := scanMarkdown(data)
		files[filepath.ToSlash(rel)] = file{links, anchors}
		return nil
	})
	require.NoError(t, err)
	require.Contains(t, files, "README.md", "the walk found the repository's markdown")

	for name, f := range files {
		for _, l := range f.links {
			target, frag, _ := strings.Cut(l.target, "#")
			if unescaped, err := url.PathUnescape(target); err == nil {
				target = unescaped
			}
			dest := name // a bare #fragment points into the file itself
			if target != "" {
				dest = filepath.ToSlash(filepath.Join(filepath.Dir(name), target))
				if strings.HasPrefix(dest, "../") || dest == ".." {
					t.Errorf("%s:%d: %s points outside the repository", name, l.line, l.target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
					t.Errorf("%s:%d: %s does not resolve: %s does not exist", name, l.line, l.target, dest)
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			if d, ok := files[dest]; ok && !d.anchors[strings.ToLower(frag)] {
				t.Errorf("%s:%d: %s: %s has no heading with the anchor #%s", name, l.line, l.target, dest, frag)
			}
		}
	}
}

// TestMeasurementsIndexListsEveryFile: docs/measurements/README.md links
// every dated file of its folder, so that a run moved out of a README is
// still found from the index.
func TestMeasurementsIndexListsEveryFile(t *testing.T) {
	root, err := FindRoot(".")
	require.NoError(t, err)
	dir := filepath.Join(root, "docs", "measurements")
	index, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	links, _ := scanMarkdown(index)
	listed := map[string]bool{}
	for _, l := range links {
		target, _, _ := strings.Cut(l.target, "#")
		listed[target] = true
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() || e.Name() == "README.md" || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		assert.True(t, listed[e.Name()], "docs/measurements/README.md does not list %s", e.Name())
	}
}
