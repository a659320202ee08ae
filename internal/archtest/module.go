package archtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Module is a Go module's packages as its source tree holds them: every
// folder with .go files, whatever their build tags.
type Module struct {
	// Path is the module path, from go.mod ("flipbot.dev/flipbot").
	Path string
	// Packages are the module's packages, sorted by Path.
	Packages []Package
}

// Package is one folder of a module.
type Package struct {
	// Path is the folder relative to the module root, slash-separated
	// ("engines/othello"); "." for the root.
	Path string
	// Name is the package name of its non-test files ("main" for a
	// command).
	Name string
	// Files are its non-test .go files, base names, sorted.
	Files []string
	// DocFiles are the non-test files that carry a package comment.
	DocFiles []string
	// Doc is the text of the package comment (of every DocFile).
	Doc string
	// Imports are its imports of the module's own packages, from every
	// .go file, test files included.
	Imports []Import
}

// Import is one import of a module package by one file.
type Import struct {
	// Path is the imported package, relative to the module root.
	Path string
	// File is the importing file's base name.
	File string
	// Test says that File is a _test.go file.
	Test bool
}

// FindRoot returns the nearest folder at or above dir that holds a
// go.mod file.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("archtest: no go.mod at or above the folder")
		}
		dir = up
	}
}

// ModulePath returns the module path that go.mod's module directive
// names.
func ModulePath(gomod []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest = strings.TrimSpace(rest)
		if p, err := strconv.Unquote(rest); err == nil {
			rest = p
		}
		if rest != "" {
			return rest, nil
		}
	}
	return "", errors.New("archtest: go.mod has no module directive")
}

// Load reads the module whose go.mod is in root: every .go file's
// package clause, package comment and imports (go/parser, imports only),
// with no build constraint applied, so that files for other systems or
// behind build tags count as much as the others. Folders named testdata
// or vendor, starting with "." or "_", or holding a go.mod of their own
// (another module) are skipped, as the go command skips them.
func Load(root string) (*Module, error) {
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	modPath, err := ModulePath(gomod)
	if err != nil {
		return nil, err
	}
	m := &Module{Path: modPath}
	byDir := map[string]*Package{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path == root {
				return nil
			}
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		p := byDir[rel]
		if p == nil {
			p = &Package{Path: rel}
			byDir[rel] = p
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		test := strings.HasSuffix(name, "_test.go")
		if !test {
			p.Files = append(p.Files, name)
			if p.Name == "" {
				p.Name = f.Name.Name
			} else if p.Name != f.Name.Name {
				return fmt.Errorf("archtest: %s: package %s, but %s elsewhere in its folder", path, f.Name.Name, p.Name)
			}
			if f.Doc != nil {
				p.DocFiles = append(p.DocFiles, name)
				p.Doc += f.Doc.Text()
			}
		}
		for _, spec := range f.Imports {
			ip, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return fmt.Errorf("archtest: %s: %w", path, err)
			}
			if rel, ok := inModule(modPath, ip); ok {
				p.Imports = append(p.Imports, Import{Path: rel, File: name, Test: test})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, p := range byDir {
		sort.Strings(p.Files)
		sort.Strings(p.DocFiles)
		m.Packages = append(m.Packages, *p)
	}
	sort.Slice(m.Packages, func(i, j int) bool { return m.Packages[i].Path < m.Packages[j].Path })
	return m, nil
}

// inModule returns importPath relative to the module modPath, and whether
// it is in the module.
func inModule(modPath, importPath string) (string, bool) {
	if importPath == modPath {
		return ".", true
	}
	rest, ok := strings.CutPrefix(importPath, modPath+"/")
	return rest, ok
}
