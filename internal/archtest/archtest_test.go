package archtest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadHouse loads the module this test is in.
func loadHouse(t *testing.T) *Module {
	t.Helper()
	root, err := FindRoot(".")
	require.NoError(t, err)
	m, err := Load(root)
	require.NoError(t, err)
	require.Equal(t, "flipbot.dev/flipbot", m.Path)
	return m
}

// TestHouseImports is the architecture test: every import of every
// package of the module, build-tagged files and tests included, is one
// that House allows.
func TestHouseImports(t *testing.T) {
	m := loadHouse(t)
	h := House()
	for _, v := range h.Check(m) {
		why := ""
		if r, ok := h.RuleFor(v.Pkg); ok {
			why = " (its rule: " + r.Why + ")"
		}
		t.Errorf("%s%s", v, why)
	}
	// The walk saw the files that this system's build leaves out.
	var tagged []string
	for _, p := range m.Packages {
		for _, f := range p.Files {
			if strings.HasSuffix(f, "_windows.go") || strings.HasSuffix(f, "_gokrazy.go") || strings.HasSuffix(f, "_bsd.go") {
				tagged = append(tagged, p.Path+"/"+f)
			}
		}
	}
	assert.Contains(t, tagged, "engines/proc/sys_windows.go")
	assert.Contains(t, tagged, "appliance/device_gokrazy.go")
}

// TestHouseTable checks the table itself: reasons, live rules and
// exceptions, packages that exist, arrows down.
func TestHouseTable(t *testing.T) {
	for _, problem := range House().Lint(loadHouse(t)) {
		t.Error(problem)
	}
}

// TestHouseDocs checks that every package has a package comment that
// names what it may import and every file it holds.
func TestHouseDocs(t *testing.T) {
	for _, problem := range House().CheckDocs(loadHouse(t)) {
		t.Error(problem)
	}
}

// TestHouseRefusesUpwardEdges adds edges that break the house to the real
// module and checks that House refuses each.
func TestHouseRefusesUpwardEdges(t *testing.T) {
	tests := []struct {
		name string
		pkg  string
		imp  Import
	}{
		{"rules import the engine interface", "engines/othello", Import{Path: "engines", File: "x.go"}},
		{"API imports the rules", "flipsight", Import{Path: "engines/othello", File: "x.go"}},
		{"engines import the bot", "engines/search", Import{Path: "bot", File: "x.go"}},
		{"hardware imports the appliance", "gpio", Import{Path: "appliance/state", File: "x.go"}},
		{"bot imports the appliance", "bot", Import{Path: "appliance", File: "x.go"}},
		{"bot imports a particular engine", "bot", Import{Path: "engines/search", File: "x.go"}},
		{"bot's code imports the arena", "bot", Import{Path: "arena", File: "x.go"}},
		{"a test-only exception used by code", "engines/proc", Import{Path: "config", File: "x.go"}},
		{"a test leaf in code", "engines/search", Import{Path: "internal/testutil", File: "x.go"}},
		{"a leaf imports the module", "internal/text", Import{Path: "flipsight", File: "x.go"}},
		{"pages import the appliance", "appliance/web", Import{Path: "appliance", File: "x.go"}},
		{"config imports the bot", "config", Import{Path: "bot", File: "x.go"}},
		{"a test of the rules imports the bot", "engines/othello", Import{Path: "bot", File: "x_test.go", Test: true}},
		{"the arena imports the bot", "arena", Import{Path: "bot", File: "x.go"}},
		{"the image helper imports the bot", "cmd/flipbot-image", Import{Path: "bot", File: "x.go"}},
	}
	m := loadHouse(t)
	h := House()
	require.Empty(t, h.Check(m), "the module itself passes")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mm := &Module{Path: m.Path, Packages: slices.Clone(m.Packages)}
			i := slices.IndexFunc(mm.Packages, func(p Package) bool { return p.Path == tc.pkg })
			require.GreaterOrEqual(t, i, 0, "package %s", tc.pkg)
			mm.Packages[i].Imports = append(slices.Clone(mm.Packages[i].Imports), tc.imp)
			assert.Equal(t, []Violation{{Pkg: tc.pkg, Import: tc.imp.Path, Test: tc.imp.Test, Files: []string{tc.imp.File}}}, h.Check(mm))
		})
	}
}

// testTable is a small house for the checker's own tests: app above lib
// above base, leaves at the bottom.
func testTable() Table {
	return Table{
		Roots:      []string{"internal/root"},
		Leaves:     []string{"internal/leaf"},
		TestLeaves: []string{"internal/testhelp"},
		Rules: []Rule{
			{Pkg: "cmd/...", Layer: 3, Imports: []string{"app"}, Why: "commands"},
			{Pkg: "app", Layer: 2, Imports: []string{"lib", "lib/sub"}, Tests: []string{"base/fake"},
				Exceptions: []Exception{{Import: "peer", TestOnly: true, Why: "end to end"}}, Why: "the app"},
			{Pkg: "peer", Layer: 2, Why: "beside the app"},
			{Pkg: "lib/...", Layer: 1, Imports: []string{"base", "lib/sub"}, Why: "the library"},
			{Pkg: "base/...", Layer: 0, Why: "the base"},
			{Pkg: "internal/...", Layer: 0, Why: "leaves"},
		},
	}
}

// testModule returns a module of testTable's packages with the given
// imports, keyed by importing package.
func testModule(imports map[string][]Import) *Module {
	m := &Module{Path: "example.com/m"}
	for _, p := range []string{"app", "base", "base/fake", "cmd/tool", "internal/leaf", "internal/root", "internal/testhelp", "lib", "lib/sub", "peer"} {
		m.Packages = append(m.Packages, Package{Path: p, Name: filepath.Base(p), Files: []string{"a.go"}, Imports: imports[p]})
	}
	return m
}

func code(path string) Import { return Import{Path: path, File: "a.go"} }
func test(path string) Import { return Import{Path: path, File: "a_test.go", Test: true} }

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		imports map[string][]Import
		extra   string // a package without a rule, added to the module
		want    []Violation
	}{
		{name: "allowed edges", imports: map[string][]Import{
			"cmd/tool": {code("app"), code("internal/leaf")},
			"app":      {code("lib"), code("lib/sub"), test("base/fake"), test("peer"), test("app"), test("internal/testhelp")},
			"lib":      {code("base"), code("lib/sub")},
			"lib/sub":  {code("base")},
		}},
		{name: "an edge up", imports: map[string][]Import{"lib": {code("app")}},
			want: []Violation{{Pkg: "lib", Import: "app", Files: []string{"a.go"}}}},
		{name: "an edge sideways", imports: map[string][]Import{"peer": {code("app")}},
			want: []Violation{{Pkg: "peer", Import: "app", Files: []string{"a.go"}}}},
		{name: "an edge that skips no layer but is not listed", imports: map[string][]Import{"cmd/tool": {code("lib")}},
			want: []Violation{{Pkg: "cmd/tool", Import: "lib", Files: []string{"a.go"}}}},
		{name: "a test import in code", imports: map[string][]Import{"app": {code("base/fake")}},
			want: []Violation{{Pkg: "app", Import: "base/fake", Files: []string{"a.go"}}}},
		{name: "a test-only exception in code", imports: map[string][]Import{"app": {code("peer")}},
			want: []Violation{{Pkg: "app", Import: "peer", Files: []string{"a.go"}}}},
		{name: "a test leaf in code", imports: map[string][]Import{"lib": {code("internal/testhelp")}},
			want: []Violation{{Pkg: "lib", Import: "internal/testhelp", Files: []string{"a.go"}}}},
		{name: "a package imports itself outside a test", imports: map[string][]Import{"lib": {code("lib")}},
			want: []Violation{{Pkg: "lib", Import: "lib", Files: []string{"a.go"}}}},
		{name: "leaves and test leaves import the root", imports: map[string][]Import{
			"internal/leaf": {code("internal/root"), test("internal/testhelp")}, "internal/testhelp": {code("internal/root")}, "base": {code("internal/root")}}},
		{name: "the root imports a leaf", imports: map[string][]Import{"internal/root": {code("internal/leaf")}},
			want: []Violation{{Pkg: "internal/root", Import: "internal/leaf", Files: []string{"a.go"}}}},
		{name: "a leaf imports a leaf", imports: map[string][]Import{"internal/testhelp": {code("internal/leaf")}},
			want: []Violation{{Pkg: "internal/testhelp", Import: "internal/leaf", Files: []string{"a.go"}}}},
		{name: "a forbidden test edge, files gathered", imports: map[string][]Import{"base": {
			{Path: "lib", File: "b_test.go", Test: true}, {Path: "lib", File: "a_test.go", Test: true}, {Path: "lib", File: "a_test.go", Test: true}}},
			want: []Violation{{Pkg: "base", Import: "lib", Test: true, Files: []string{"a_test.go", "b_test.go"}}}},
		{name: "code and test edges apart", imports: map[string][]Import{"base/fake": {code("app"), test("app")}},
			want: []Violation{
				{Pkg: "base/fake", Import: "app", Files: []string{"a.go"}},
				{Pkg: "base/fake", Import: "app", Test: true, Files: []string{"a_test.go"}},
			}},
		{name: "a package without a rule", extra: "tools",
			want: []Violation{{Pkg: "tools"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := testModule(tc.imports)
			if tc.extra != "" {
				m.Packages = append(m.Packages, Package{Path: tc.extra, Imports: []Import{code("app")}})
			}
			assert.Equal(t, tc.want, testTable().Check(m))
		})
	}
}

func TestLint(t *testing.T) {
	used := map[string][]Import{"app": {test("peer")}}
	tests := []struct {
		name    string
		change  func(*Table)
		imports map[string][]Import
		want    []string
	}{
		{name: "the test table is sound", change: func(*Table) {}},
		{name: "an upward import", change: func(tb *Table) { tb.Rules[3].Imports = append(tb.Rules[3].Imports, "app") },
			want: []string{"rule lib/...: import app goes up or sideways: make it an Exception, with the reason"}},
		{name: "a sideways test import", change: func(tb *Table) { tb.Rules[2].Tests = []string{"app"} },
			want: []string{"rule peer: test import app goes up or sideways: make it an Exception, with the reason"}},
		{name: "an exception that breaks nothing", change: func(tb *Table) {
			tb.Rules[1].Exceptions = append(tb.Rules[1].Exceptions, Exception{Import: "base", Why: "x"})
		}, imports: map[string][]Import{"app": {test("peer"), code("base")}},
			want: []string{"rule app: exception base breaks no layer: list it in Imports or Tests"}},
		{name: "an exception no file needs", change: func(*Table) {}, imports: map[string][]Import{},
			want: []string{"rule app: exception peer: no file makes that import any more; remove it"}},
		{name: "an exception without a reason", change: func(tb *Table) { tb.Rules[1].Exceptions[0].Why = "" },
			want: []string{"rule app: exception peer has no reason"}},
		{name: "a rule without a reason", change: func(tb *Table) { tb.Rules[2].Why = " " },
			want: []string{"rule peer: no reason (Why)"}},
		{name: "a rule that matches nothing", change: func(tb *Table) {
			tb.Rules = append(tb.Rules, Rule{Pkg: "gone", Why: "x"})
		}, want: []string{"rule gone: matches no package (or an earlier rule takes them all)"}},
		{name: "a shadowed rule", change: func(tb *Table) {
			tb.Rules = append(tb.Rules, Rule{Pkg: "lib/sub", Why: "x"})
		}, want: []string{"rule lib/sub: matches no package (or an earlier rule takes them all)"}},
		{name: "an unknown import, listed twice", change: func(tb *Table) {
			tb.Rules[0].Imports = append(tb.Rules[0].Imports, "nowhere", "nowhere")
		}, want: []string{
			"rule cmd/...: import nowhere is not a package of the module",
			"rule cmd/...: import nowhere goes up or sideways: make it an Exception, with the reason",
			"rule cmd/...: import nowhere is not a package of the module",
			"rule cmd/...: nowhere listed twice",
			"rule cmd/...: import nowhere goes up or sideways: make it an Exception, with the reason",
		}},
		{name: "a leaf that imports", change: func(tb *Table) { tb.Rules[5].Imports = []string{"base"} },
			want: []string{
				"rule internal/...: import base goes up or sideways: make it an Exception, with the reason",
				"leaf internal/root: its rule (internal/...) lets it import packages of the module",
				"leaf internal/leaf: its rule (internal/...) lets it import packages of the module",
				"leaf internal/testhelp: its rule (internal/...) lets it import packages of the module",
			}},
		{name: "an unknown leaf", change: func(tb *Table) { tb.Leaves = append(tb.Leaves, "internal/gone") },
			want: []string{"leaf internal/gone is not a package of the module"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb := testTable()
			tc.change(&tb)
			imports := tc.imports
			if imports == nil {
				imports = used
			}
			assert.Equal(t, tc.want, tb.Lint(testModule(imports)))
		})
	}
}

func TestCheckDocs(t *testing.T) {
	tests := []struct {
		name string
		pkg  Package
		want []string
	}{
		{name: "a good comment", pkg: Package{Path: "app", Name: "app", DocFiles: []string{"doc.go"},
			Doc: "Package app is the app.\n\nIt imports lib and lib/sub, and its tests peer.\n"}},
		{name: "a command", pkg: Package{Path: "cmd/tool", Name: "main", DocFiles: []string{"main.go"},
			Doc: "Command tool runs the app. It imports app.\n"}},
		{name: "no comment", pkg: Package{Path: "app", Name: "app"},
			want: []string{"app: no package comment"}},
		{name: "two comments", pkg: Package{Path: "base", Name: "base", DocFiles: []string{"a.go", "b.go"}, Doc: "Package base is. It imports nothing.\nPackage base is.\n"},
			want: []string{"base: package comment in a.go, b.go: keep one"}},
		{name: "the wrong start", pkg: Package{Path: "base", Name: "base", DocFiles: []string{"a.go"}, Doc: "Base imports nothing.\n"},
			want: []string{`base: the package comment (a.go) does not start "Package base "`}},
		{name: "no word on imports", pkg: Package{Path: "base", Name: "base", DocFiles: []string{"a.go"}, Doc: "Package base is the base.\n"},
			want: []string{"base: the package comment (a.go) does not say what the package imports"}},
		{name: "an allowed import not named", pkg: Package{Path: "app", Name: "app", DocFiles: []string{"doc.go"},
			Doc: "Package app is the app. It imports lib/sub/x, the library's lib/subway and peer.\n"},
			want: []string{
				"app: the package comment (doc.go) does not name lib, which its rule lets it import",
				"app: the package comment (doc.go) does not name lib/sub, which its rule lets it import",
			}},
		{name: "an exception not named", pkg: Package{Path: "app", Name: "app", DocFiles: []string{"doc.go"},
			Doc: "Package app is the app. It imports lib and lib/sub (and appear in tests).\n"},
			want: []string{"app: the package comment (doc.go) does not name peer, which its rule lets it import"}},
		{name: "every file named", pkg: Package{Path: "base", Name: "base", Files: []string{"a.go", "b.go", "c_unix.go", "doc.go"}, DocFiles: []string{"doc.go"},
			Doc: "Package base is the base. It imports nothing.\n\nFiles: a.go (the a), b.go, c_unix.go.\n"}},
		{name: "the file with the comment need not name itself", pkg: Package{Path: "base", Name: "base", Files: []string{"base.go"}, DocFiles: []string{"base.go"},
			Doc: "Package base is the base. It imports nothing.\n"}},
		{name: "a file not named", pkg: Package{Path: "base", Name: "base", Files: []string{"a.go", "b.go", "doc.go", "main.go", "x.go"}, DocFiles: []string{"doc.go"},
			Doc: "Package base is the base. It imports nothing.\n\nFiles: a.go, domain.go, x.go.orig, sub/main.go and b.go.\n"},
			want: []string{
				"base: the package comment (doc.go) does not name its file main.go",
				"base: the package comment (doc.go) does not name its file x.go",
			}},
		{name: "a package without a rule is Check's", pkg: Package{Path: "tools", Name: "tools"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &Module{Path: "example.com/m", Packages: []Package{tc.pkg}}
			assert.Equal(t, tc.want, testTable().CheckDocs(m))
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, pkg string
		want         bool
	}{
		{"bot", "bot", true},
		{"bot", "bot/record", false},
		{"bot", "botany", false},
		{"bot/...", "bot", true},
		{"bot/...", "bot/record", true},
		{"bot/...", "bot/internal/soak", true},
		{"bot/...", "botany", false},
		{"bot/...", "arena/bot", false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Match(tc.pattern, tc.pkg), "Match(%q, %q)", tc.pattern, tc.pkg)
	}
}

func TestModulePath(t *testing.T) {
	tests := []struct {
		gomod string
		want  string
		err   bool
	}{
		{gomod: "module flipbot.dev/flipbot\n\ngo 1.26.0\n", want: "flipbot.dev/flipbot"},
		{gomod: "// a module\nmodule \"example.com/q\" // quoted\n", want: "example.com/q"},
		{gomod: "modules example.com/x\n", err: true},
		{gomod: "go 1.26\n", err: true},
	}
	for _, tc := range tests {
		got, err := ModulePath([]byte(tc.gomod))
		if tc.err {
			assert.Error(t, err, "%q", tc.gomod)
			continue
		}
		require.NoError(t, err, "%q", tc.gomod)
		assert.Equal(t, tc.want, got)
	}
}

// writeFiles writes files (slash paths to contents) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod":   "module example.com/m\n\ngo 1.26\n",
		"a/doc.go": "// Package a is a.\npackage a\n",
		"a/a_windows.go": "//go:build windows\n\npackage a\n\nimport (\n\t\"os\"\n\t\"example.com/m/b\"\n)\n\n" +
			"var _ = os.Args\nvar _ = b.X\n",
		"a/a_gokrazy.go":       "//go:build gokrazy\n\npackage a\n\nimport _ \"example.com/m/b/c\"\n",
		"a/a_test.go":          "package a_test\n\nimport (\n\t\"example.com/m/a\"\n\tx \"example.com/m/b\"\n)\n",
		"b/b.go":               "package b\n\nimport \"example.com/mother\"\n\nconst X = 1\n",
		"b/c/c.go":             "// Package c is c.\npackage c\n",
		"b/testdata/t.go":      "package t\n\nimport \"example.com/m/a\"\n",
		"nested/go.mod":        "module example.com/nested\n",
		"nested/n.go":          "package n\n\nimport \"example.com/m/a\"\n",
		".git/x.go":            "package x\n",
		"_old/o.go":            "package o\n",
		"docs/notes.md":        "no Go here\n",
		"cmd/tool/main.go":     "// Command tool is a tool.\npackage main\n\nimport \"example.com/m\"\n",
		"root.go":              "package m\n",
		"vendor/v/v.go":        "package v\n",
		"a/.hidden.go":         "package nota\n",
		"a/_ignored.go":        "package nota\n",
		"b/c/c_linux_arm64.go": "package c\n\nimport \"C\"\n",
	})
	m, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, "example.com/m", m.Path)
	assert.Equal(t, []Package{
		{Path: ".", Name: "m", Files: []string{"root.go"}},
		{Path: "a", Name: "a", Files: []string{"a_gokrazy.go", "a_windows.go", "doc.go"}, DocFiles: []string{"doc.go"}, Doc: "Package a is a.\n",
			Imports: []Import{{Path: "b/c", File: "a_gokrazy.go"}, {Path: "a", File: "a_test.go", Test: true}, {Path: "b", File: "a_test.go", Test: true}, {Path: "b", File: "a_windows.go"}}},
		{Path: "b", Name: "b", Files: []string{"b.go"}},
		{Path: "b/c", Name: "c", Files: []string{"c.go", "c_linux_arm64.go"}, DocFiles: []string{"c.go"}, Doc: "Package c is c.\n"},
		{Path: "cmd/tool", Name: "main", Files: []string{"main.go"}, DocFiles: []string{"main.go"}, Doc: "Command tool is a tool.\n",
			Imports: []Import{{Path: ".", File: "main.go"}}},
	}, m.Packages)
}

func TestLoadErrors(t *testing.T) {
	tests := map[string]map[string]string{
		"two packages in a folder": {"a/a.go": "package a\n", "a/b.go": "package b\n"},
		"a syntax error":           {"b/bad.go": "package b\n\nimport (\n"},
		"no go.mod":                {},
		"no module directive":      {"go.mod": "go 1.26\n"},
	}
	for name, files := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if _, ok := files["go.mod"]; !ok && name != "no go.mod" {
				files["go.mod"] = "module example.com/m\n"
			}
			writeFiles(t, dir, files)
			_, err := Load(dir)
			assert.Error(t, err)
		})
	}
}

func TestFindRoot(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"go.mod": "module example.com/m\n", "a/b/c.go": "package b\n"})
	got, err := FindRoot(filepath.Join(dir, "a", "b"))
	require.NoError(t, err)
	want, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	gotReal, err := filepath.EvalSymlinks(got)
	require.NoError(t, err)
	assert.Equal(t, want, gotReal)
}
