// Package calib fits the built-in engine's Multi-ProbCut and selective
// endgame and writes the fits as the Go tables that engines/search reads.
// It is `flipengine probcut`'s work, kept out of the search package: the
// engine only reads the generated tables (probcut_pattern.go,
// probcut_baseline.go, probcut_end.go) and offers the measurements these
// fits need (search.Engine's NoisyGame, DepthValues and EndValues).
//
// Files: probcut.go ([ProbCut], the midgame fits by mode, phase and depth),
// endcut.go ([EndCut], the endgame fits by mode, empties and shallow
// depth), gosrc.go ([WriteProbCutGo], [WriteEndCutGo], the generated
// tables).
//
// It imports engines/search (the engine it measures), engines/eval (the
// evaluation unit, eval.Disc) and engines/othello (the modes and
// positions).
package calib
