// Package archtest holds the house's rules of imports and checks the
// module against them: which of flipbot's packages may import which
// ([House], a table with a layer and a reason per package), and that
// every package says so in its package comment.
//
// Its test walks the module from go.mod down, reads every .go file's
// imports with go/parser (no build constraint applied: the windows,
// darwin and gokrazy files count as much as the others) and fails on an
// import the table does not allow, a package without a rule or without a
// package comment, a comment that does not name what its package may
// import or every non-test file of its package (its list of files), and
// a table that contradicts itself (an upward edge that is not
// an explicit exception, an exception no file needs any more).
//
// Non-test files are held to a rule's Imports; _test.go files may also
// import its Tests (test doubles such as arena/arenatest or
// engines/internal/enginetest, and what an end-to-end test drives), the
// test leaves (internal/testutil, internal/winetest) and the package
// itself.
//
// Files:
//
//   - module.go: [Load], the module's packages and imports from its
//     source ([FindRoot], [ModulePath]).
//   - table.go: [Rule], [Exception], [Table] and its checks ([Table.Check],
//     [Table.Lint], [Table.CheckDocs]).
//   - house.go: [House], flipbot's table, and its layers.
//
// It imports nothing of the module: it reads the module's files.
package archtest
