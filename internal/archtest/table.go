package archtest

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Rule says which of the module's packages the packages it names may
// import.
type Rule struct {
	// Pkg is a package path relative to the module root
	// ("engines/othello"), or every package at or under a folder
	// ("gokrazy/...").
	Pkg string
	// Layer is the rule's place in the house, 0 the bottom: a package
	// imports only from lower layers or from within its own top-level
	// folder (see [Table.Lint]), unless an Exception says otherwise.
	Layer int
	// Imports are the packages its non-test files may import (exact
	// paths), besides the table's Leaves.
	Imports []string
	// Tests are the packages its _test.go files may import besides
	// Imports, the table's TestLeaves and the package itself (an external
	// test package imports what it tests).
	Tests []string
	// Exceptions are edges that break the layers, kept on purpose and
	// said why.
	Exceptions []Exception
	// Why says what the package is and why it may import what it does.
	Why string
}

// Exception is an import that breaks the layers, allowed on purpose.
type Exception struct {
	// Import is the package imported.
	Import string
	// TestOnly says that only _test.go files may import it.
	TestOnly bool
	// Why says why the edge is kept.
	Why string
}

// Table is the house's rules: which package may import which.
type Table struct {
	// Rules are tried in order; the first whose Pkg matches a package is
	// that package's rule.
	Rules []Rule
	// Roots are the packages below the leaves: every package may import
	// them, leaves included, and they import nothing of the module.
	Roots []string
	// Leaves are packages that every package may import, except the
	// leaves themselves.
	Leaves []string
	// TestLeaves are packages that every package's test files may
	// import, the leaves' included; no non-test file may.
	TestLeaves []string
}

// Match reports whether the package path pkg matches pattern: the same
// path, or, for a pattern ending in "/...", the folder before it or any
// package under it.
func Match(pattern, pkg string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	return pattern == pkg
}

// RuleFor returns the first rule that matches pkg.
func (t Table) RuleFor(pkg string) (Rule, bool) {
	for _, r := range t.Rules {
		if Match(r.Pkg, pkg) {
			return r, true
		}
	}
	return Rule{}, false
}

// isLeaf reports whether pkg is one of the table's roots, leaves or test
// leaves.
func (t Table) isLeaf(pkg string) bool {
	return slices.Contains(t.Roots, pkg) || slices.Contains(t.Leaves, pkg) || slices.Contains(t.TestLeaves, pkg)
}

// Allows reports whether pkg may import imp, from a test file when test
// is set.
func (t Table) Allows(pkg, imp string, test bool) bool {
	if pkg == imp {
		return test // only an external test package imports its own package
	}
	r, ok := t.RuleFor(pkg)
	if !ok {
		return false
	}
	if slices.Contains(r.Imports, imp) || slices.Contains(t.Roots, imp) || (!t.isLeaf(pkg) && slices.Contains(t.Leaves, imp)) {
		return true
	}
	for _, e := range r.Exceptions {
		if e.Import == imp && (test || !e.TestOnly) {
			return true
		}
	}
	if !test {
		return false
	}
	return slices.Contains(r.Tests, imp) || slices.Contains(t.TestLeaves, imp)
}

// Violation is an import the table does not allow, or a package it has
// no rule for.
type Violation struct {
	// Pkg is the importing package.
	Pkg string
	// Import is the imported package; empty when Pkg has no rule.
	Import string
	// Test says that only test files make the import.
	Test bool
	// Files are the files that make the import.
	Files []string
}

// String describes the violation for a test's failure message.
func (v Violation) String() string {
	if v.Import == "" {
		return fmt.Sprintf("%s: no rule in the table", v.Pkg)
	}
	kind := "non-test files"
	if v.Test {
		kind = "test files"
	}
	return fmt.Sprintf("%s imports %s (%s %s): not allowed by its rule", v.Pkg, v.Import, kind, strings.Join(v.Files, ", "))
}

// Check returns every import in m that t does not allow, and every
// package of m that no rule matches, in package order.
func (t Table) Check(m *Module) []Violation {
	var out []Violation
	for _, p := range m.Packages {
		if _, ok := t.RuleFor(p.Path); !ok {
			out = append(out, Violation{Pkg: p.Path})
			continue
		}
		type edge struct {
			imp  string
			test bool
		}
		files := map[edge][]string{}
		for _, imp := range p.Imports {
			e := edge{imp.Path, imp.Test}
			if !slices.Contains(files[e], imp.File) {
				files[e] = append(files[e], imp.File)
			}
		}
		var edges []edge
		for e := range files {
			edges = append(edges, e)
		}
		sort.Slice(edges, func(i, j int) bool {
			if edges[i].imp != edges[j].imp {
				return edges[i].imp < edges[j].imp
			}
			return !edges[i].test && edges[j].test
		})
		for _, e := range edges {
			if !t.Allows(p.Path, e.imp, e.test) {
				fs := files[e]
				sort.Strings(fs)
				out = append(out, Violation{Pkg: p.Path, Import: e.imp, Test: e.test, Files: fs})
			}
		}
	}
	return out
}

// Lint returns what is wrong with the table itself, given the module it
// is for:
//
//   - a rule without a reason, or that matches no package first;
//   - an import, test import, exception or leaf that is not a package of
//     the module, or that a rule lists twice;
//   - an import or test import that goes up or sideways: to a package
//     whose rule has the same or a higher layer, outside the importer's
//     own top-level folder (such an edge must be an Exception);
//   - an exception that does not break the layers (it is an import), has
//     no reason, or that no file makes any more;
//   - a leaf whose rule lets it import something.
func (t Table) Lint(m *Module) []string {
	var out []string
	pkgs := map[string]bool{}
	for _, p := range m.Packages {
		pkgs[p.Path] = true
	}
	first := map[int]bool{}
	for _, p := range m.Packages {
		for i, r := range t.Rules {
			if Match(r.Pkg, p.Path) {
				first[i] = true
				break
			}
		}
	}
	used := map[string]bool{} // pkg + " " + import
	for _, p := range m.Packages {
		for _, imp := range p.Imports {
			used[p.Path+" "+imp.Path] = true
		}
	}
	for i, r := range t.Rules {
		if strings.TrimSpace(r.Why) == "" {
			out = append(out, fmt.Sprintf("rule %s: no reason (Why)", r.Pkg))
		}
		if !first[i] {
			out = append(out, fmt.Sprintf("rule %s: matches no package (or an earlier rule takes them all)", r.Pkg))
		}
		seen := map[string]bool{}
		check := func(kind, imp string) {
			if !pkgs[imp] {
				out = append(out, fmt.Sprintf("rule %s: %s %s is not a package of the module", r.Pkg, kind, imp))
			}
			if seen[imp] {
				out = append(out, fmt.Sprintf("rule %s: %s listed twice", r.Pkg, imp))
			}
			seen[imp] = true
		}
		for _, imp := range r.Imports {
			check("import", imp)
			if !t.down(r, imp) {
				out = append(out, fmt.Sprintf("rule %s: import %s goes up or sideways: make it an Exception, with the reason", r.Pkg, imp))
			}
		}
		for _, imp := range r.Tests {
			check("test import", imp)
			if !t.down(r, imp) {
				out = append(out, fmt.Sprintf("rule %s: test import %s goes up or sideways: make it an Exception, with the reason", r.Pkg, imp))
			}
		}
		for _, e := range r.Exceptions {
			check("exception", e.Import)
			if t.down(r, e.Import) {
				out = append(out, fmt.Sprintf("rule %s: exception %s breaks no layer: list it in Imports or Tests", r.Pkg, e.Import))
			}
			if strings.TrimSpace(e.Why) == "" {
				out = append(out, fmt.Sprintf("rule %s: exception %s has no reason", r.Pkg, e.Import))
			}
			live := false
			for _, p := range m.Packages {
				if Match(r.Pkg, p.Path) && used[p.Path+" "+e.Import] {
					live = true
				}
			}
			if !live {
				out = append(out, fmt.Sprintf("rule %s: exception %s: no file makes that import any more; remove it", r.Pkg, e.Import))
			}
		}
	}
	for _, l := range slices.Concat(t.Roots, t.Leaves, t.TestLeaves) {
		if !pkgs[l] {
			out = append(out, fmt.Sprintf("leaf %s is not a package of the module", l))
			continue
		}
		r, ok := t.RuleFor(l)
		if !ok {
			continue // Check reports it
		}
		if len(r.Imports) > 0 || len(r.Exceptions) > 0 {
			out = append(out, fmt.Sprintf("leaf %s: its rule (%s) lets it import packages of the module", l, r.Pkg))
		}
	}
	return out
}

// down reports whether the rule r may import imp without an exception:
// imp is in the same top-level folder as r's packages, or its rule's
// layer is below r's.
func (t Table) down(r Rule, imp string) bool {
	if top(strings.TrimSuffix(r.Pkg, "/...")) == top(imp) {
		return true
	}
	to, ok := t.RuleFor(imp)
	return ok && to.Layer < r.Layer
}

// top returns the first element of a slash-separated path.
func top(p string) string {
	first, _, _ := strings.Cut(p, "/")
	return first
}

// CheckDocs returns what is missing from the package comments of m:
//
//   - every package has one, in exactly one non-test file, starting
//     "Package NAME " (or "Command " for a main package);
//   - it says what the package imports (the word "import" appears), and
//     names every package that its rule lets its non-test files import
//     and every exception, by its path relative to the module root;
//   - it names every non-test file of the package other than the one
//     that carries it ("engine.go"), so that its list of files cannot
//     drift from the folder.
//
// Packages that no rule matches are left to Check.
func (t Table) CheckDocs(m *Module) []string {
	var out []string
	for _, p := range m.Packages {
		r, ok := t.RuleFor(p.Path)
		if !ok {
			continue
		}
		switch len(p.DocFiles) {
		case 0:
			out = append(out, fmt.Sprintf("%s: no package comment", p.Path))
			continue
		case 1:
		default:
			out = append(out, fmt.Sprintf("%s: package comment in %s: keep one", p.Path, strings.Join(p.DocFiles, ", ")))
		}
		want := "Package " + p.Name + " "
		if p.Name == "main" {
			want = "Command "
		}
		if !strings.HasPrefix(p.Doc, want) {
			out = append(out, fmt.Sprintf("%s: the package comment (%s) does not start %q", p.Path, p.DocFiles[0], want))
		}
		if !strings.Contains(strings.ToLower(p.Doc), "import") {
			out = append(out, fmt.Sprintf("%s: the package comment (%s) does not say what the package imports", p.Path, p.DocFiles[0]))
		}
		names := append([]string(nil), r.Imports...)
		for _, e := range r.Exceptions {
			names = append(names, e.Import)
		}
		for _, n := range names {
			if !namesPath(p.Doc, n) {
				out = append(out, fmt.Sprintf("%s: the package comment (%s) does not name %s, which its rule lets it import", p.Path, p.DocFiles[0], n))
			}
		}
		for _, f := range p.Files {
			if f != p.DocFiles[0] && !namesFile(p.Doc, f) {
				out = append(out, fmt.Sprintf("%s: the package comment (%s) does not name its file %s", p.Path, p.DocFiles[0], f))
			}
		}
	}
	return out
}

// namesFile reports whether text names the file as a whole: not as part
// of a longer file name ("main.go" in "domain.go" or "main.go.orig").
func namesFile(text, file string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_/.-])` + regexp.QuoteMeta(file) + `($|[^A-Za-z0-9_/.-]|\.($|[^A-Za-z0-9_]))`)
	return re.MatchString(text)
}

// namesPath reports whether text names the package path as a whole: not
// as part of a longer path or word.
func namesPath(text, path string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_/.-])` + regexp.QuoteMeta(path) + `($|[^A-Za-z0-9_/-])`)
	return re.MatchString(text)
}
