package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/eval/train"
	"flipbot.dev/flipbot/engines/othello"
)

// trainCommands is the command table of flipengine train.
func trainCommands() []command {
	return []command{
		{"wthor", "-in DIR -out DIR [-valid-from YEAR]", "WTHOR games to labelled positions (std)", runTrainWthor},
		{"selfplay", "-mode M -out DIR -chunks N -games G -depth D -exact E", "self-play data from random 12-disc starts, in resumable chunks", runTrainSelfPlay},
		{"fit", "-mode M -train GLOBS [-valid GLOBS | -holdout K] -out FILE", "fit a weights file on data files", runTrainFit},
		{"validate", "-weights FILE -data GLOBS", "a weights file's loss per phase on data files", runTrainValidate},
	}
}

// runTrain dispatches the training pipeline's subcommands.
func runTrain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return dispatch("flipengine train", trainCommands(), args, stdin, stdout, stderr)
}

func trainLogger(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, nil))
}

// runTrainSelfPlay makes self-play data chunks.
func runTrainSelfPlay(args []string, _ io.Reader, _, stderr io.Writer) int {
	fs := flag.NewFlagSet("train selfplay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modeName := fs.String("mode", "std", "game mode")
	dir := fs.String("out", "", "output `DIR` of the chunk files")
	tag := fs.String("tag", "", "chunk file name prefix (default MODE-gGEN)")
	gen := fs.Int("gen", 1, "generation (names the files; >1 with -weights)")
	weights := fs.String("weights", "", "weights `FILE` the players evaluate with (default: the baseline; 'embedded' for the built-in)")
	first := fs.Int("first", 0, "first chunk")
	chunks := fs.Int("chunks", 10, "number of chunks")
	games := fs.Int("games", 100, "games per chunk")
	depth := fs.Int("depth", 3, "midgame search depth")
	exact := fs.Int("exact", 14, "exact solves from this many empties")
	randPlies := fs.Int("random-plies", 10, "plies after the start with random moves")
	randRate := fs.Float64("random-rate", 0.1, "probability of a random move in those plies")
	seed := fs.Uint64("seed", 1, "random seed")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	mode, err := othello.ParseMode(*modeName)
	if err != nil || *dir == "" {
		fmt.Fprintf(stderr, "flipengine train selfplay: need -mode and -out (%v)\n", err)
		return 2
	}
	if *tag == "" {
		*tag = fmt.Sprintf("%s-g%d", mode, *gen)
	}
	sp := &train.SelfPlay{Mode: mode, Depth: *depth, Exact: *exact, RandomPlies: *randPlies, RandomRate: *randRate,
		Seed: *seed, GamesPerChunk: *games, Log: trainLogger(stderr)}
	if *weights != "" {
		ev, err := loadEvals(*weights)
		if err != nil {
			fmt.Fprintf(stderr, "flipengine train selfplay: %v\n", err)
			return 1
		}
		sp.Eval8, sp.Eval10 = ev.Eval8, ev.Eval10
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	n, err := sp.Run(ctx, *dir, *tag, *first, *chunks)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine train selfplay: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "self-play %s: %d new positions\n", mode, n)
	return 0
}

// loadEvals loads the evaluation set of a weights file (one mode; the
// others keep the baseline) or the embedded set.
func loadEvals(path string) (*eval.Set, error) {
	if path == "embedded" {
		return eval.Embedded()
	}
	set := eval.BaselineSet()
	w, err := readWeights(path)
	if err != nil {
		return nil, err
	}
	p, err := eval.NewPattern(w)
	if err != nil {
		return nil, err
	}
	set.Replace(p)
	return set, nil
}

// runTrainWthor converts WTHOR files to data files: a training file and a
// validation file of the held-out years.
func runTrainWthor(args []string, _ io.Reader, _, stderr io.Writer) int {
	fs := flag.NewFlagSet("train wthor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "../shared/data/wthor", "`DIR` of WTH_YYYY.wtb files")
	out := fs.String("out", "", "output `DIR`")
	from := fs.Int("valid-from", 2018, "first held-out year (validation)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" {
		fmt.Fprintln(stderr, "flipengine train wthor: need -out")
		return 2
	}
	files, err := filepath.Glob(filepath.Join(*in, "WTH_*.wtb"))
	if err != nil || len(files) == 0 {
		fmt.Fprintf(stderr, "flipengine train wthor: no WTH_*.wtb files in %s\n", *in)
		return 1
	}
	sort.Strings(files)
	var trainSet, valid []train.Record
	games := 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "flipengine train wthor: %v\n", err)
			return 1
		}
		wf, err := train.ParseWthor(data)
		if err != nil {
			fmt.Fprintf(stderr, "flipengine train wthor: %s: %v\n", name, err)
			return 1
		}
		for i := range wf.Games {
			recs, err := wf.Games[i].Records(wf.TheoryDepth)
			if err != nil {
				fmt.Fprintf(stderr, "flipengine train wthor: %s game %d: %v (skipped)\n", name, i, err)
				continue
			}
			games++
			if wf.Year >= *from {
				valid = append(valid, recs...)
			} else {
				trainSet = append(trainSet, recs...)
			}
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "flipengine train wthor: %v\n", err)
		return 1
	}
	for _, f := range []struct {
		name string
		recs []train.Record
	}{{"std-wthor-train.fbpd", trainSet}, {"std-wthor-valid.fbpd", valid}} {
		if err := train.WriteData(filepath.Join(*out, f.name), othello.Std, f.recs); err != nil {
			fmt.Fprintf(stderr, "flipengine train wthor: %v\n", err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "wthor: %d games, %d training and %d validation positions (years from %d)\n", games, len(trainSet), len(valid), *from)
	return 0
}

// globs expands a comma-separated list of file patterns, sorted.
func globs(list string) ([]string, error) {
	var out []string
	for _, pat := range strings.Split(list, ",") {
		if pat == "" {
			continue
		}
		m, err := filepath.Glob(pat)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", pat, err)
		}
		out = append(out, m...)
	}
	sort.Strings(out)
	return out, nil
}

// runTrainFit fits the weights of one mode and prints the validation loss
// per phase.
func runTrainFit(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("train fit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modeName := fs.String("mode", "std", "game mode")
	trainList := fs.String("train", "", "comma-separated `GLOBS` of training data files")
	validList := fs.String("valid", "", "comma-separated `GLOBS` of validation data files")
	holdout := fs.Int("holdout", 0, "also hold out every Nth training file (sorted) for validation (0: none)")
	out := fs.String("out", "", "weights `FILE` to write")
	epochs := fs.Int("epochs", 4, "passes over the data")
	lr := fs.Float64("lr", 0.02, "learning rate of the first epoch (halved every epoch)")
	l2 := fs.Float64("l2", 1e-3, "L2 penalty")
	seed := fs.Uint64("seed", 1, "random seed of the sample order")
	ckpt := fs.String("checkpoint", "", "checkpoint `FILE` (saved every epoch, resumed from)")
	initFile := fs.String("init", "", "weights `FILE` to start from (same mode; e.g. generation 1's for the layout with the mobility features, which start at 0)")
	mobility := fs.Bool("mobility", true, "fit the layout with the four mobility features (false: the 8×8 layout without them, generation 1's)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	mode, err := othello.ParseMode(*modeName)
	if err != nil || *out == "" || *trainList == "" {
		fmt.Fprintf(stderr, "flipengine train fit: need -mode, -train and -out (%v)\n", err)
		return 2
	}
	var layout *eval.Layout
	for _, l := range eval.Layouts(mode) {
		if l.Mobility() == *mobility && layout == nil {
			layout = l
		}
	}
	if layout == nil {
		fmt.Fprintf(stderr, "flipengine train fit: %s has no layout with -mobility=%v\n", mode, *mobility)
		return 2
	}
	var initW *eval.Weights
	if *initFile != "" {
		if initW, err = readWeights(*initFile); err != nil {
			fmt.Fprintf(stderr, "flipengine train fit: %v\n", err)
			return 1
		}
		if initW.Mode != mode {
			fmt.Fprintf(stderr, "flipengine train fit: %s holds %s weights, not %s\n", *initFile, initW.Mode, mode)
			return 1
		}
	}
	trainFiles, err := globs(*trainList)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine train fit: %v\n", err)
		return 2
	}
	validFiles, err := globs(*validList)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine train fit: %v\n", err)
		return 2
	}
	var trainSet, valid []train.Record
	for i, name := range trainFiles {
		if *holdout > 0 && i%*holdout == *holdout-1 {
			validFiles = append(validFiles, name)
			continue
		}
		if trainSet, err = train.ReadDataFile(name, mode, trainSet); err != nil {
			fmt.Fprintf(stderr, "flipengine train fit: %v\n", err)
			return 1
		}
	}
	for _, name := range validFiles {
		if valid, err = train.ReadDataFile(name, mode, valid); err != nil {
			fmt.Fprintf(stderr, "flipengine train fit: %v\n", err)
			return 1
		}
	}
	log := trainLogger(stderr)
	log.Info("fit data", "mode", mode, "train_files", len(trainFiles), "train", len(trainSet), "valid_files", len(validFiles), "valid", len(valid))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	f := &train.Fit{Mode: mode, Layout: layout, Epochs: *epochs, LR: *lr, L2: *l2, Seed: *seed, Checkpoint: *ckpt, Init: initW, Log: log}
	w, loss, err := f.Run(ctx, trainSet, valid)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine train fit: %v\n", err)
		return 1
	}
	data, err := w.MarshalBinary()
	if err != nil {
		fmt.Fprintf(stderr, "flipengine train fit: %v\n", err)
		return 1
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintf(stderr, "flipengine train fit: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d training, %d validation positions; weights %s (%d bytes, layout %08x, mobility %v)\n",
		mode, len(trainSet), len(valid), *out, len(data), layout.ID(), layout.Mobility())
	printLoss(stdout, loss)
	return 0
}

// printLoss prints the validation loss per phase and over all phases.
func printLoss(stdout io.Writer, loss []train.PhaseLoss) {
	fmt.Fprintln(stdout, "phase  positions  rmse  zero-rmse (discs, validation)")
	var se, sz float64
	var n int
	for _, pl := range loss {
		fmt.Fprintf(stdout, "%5d %10d %5.2f %6.2f\n", pl.Phase, pl.N, pl.RMSE, pl.ZeroRMSE)
		se += pl.RMSE * pl.RMSE * float64(pl.N)
		sz += pl.ZeroRMSE * pl.ZeroRMSE * float64(pl.N)
		n += pl.N
	}
	if n > 0 {
		fmt.Fprintf(stdout, "  all %10d %5.2f %6.2f\n", n, math.Sqrt(se/float64(n)), math.Sqrt(sz/float64(n)))
	}
}

// readWeights reads and checks a weights file.
func readWeights(path string) (*eval.Weights, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("weights: %w", err)
	}
	var w eval.Weights
	if err := w.UnmarshalBinary(data); err != nil {
		return nil, fmt.Errorf("weights %s: %w", path, err)
	}
	return &w, nil
}

// runTrainValidate prints the loss of a weights file on data files.
func runTrainValidate(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("train validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	wfile := fs.String("weights", "", "weights `FILE`")
	list := fs.String("data", "", "comma-separated `GLOBS` of data files")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	data, err := os.ReadFile(*wfile)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine train validate: %v\n", err)
		return 1
	}
	var w eval.Weights
	if err := w.UnmarshalBinary(data); err != nil {
		fmt.Fprintf(stderr, "flipengine train validate: %s: %v\n", *wfile, err)
		return 1
	}
	files, err := globs(*list)
	if err != nil || len(files) == 0 {
		fmt.Fprintf(stderr, "flipengine train validate: no data files (%v)\n", err)
		return 2
	}
	var recs []train.Record
	for _, name := range files {
		if recs, err = train.ReadDataFile(name, w.Mode, recs); err != nil {
			fmt.Fprintf(stderr, "flipengine train validate: %v\n", err)
			return 1
		}
	}
	loss, err := train.Validate(&w, recs)
	if err != nil {
		fmt.Fprintf(stderr, "flipengine train validate: %v\n", err)
		return 1
	}
	l, err := w.Layout()
	if err != nil {
		fmt.Fprintf(stderr, "flipengine train validate: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s (layout %08x, mobility %v) on %d positions of %d files\n", w.Mode, *wfile, l.ID(), l.Mobility(), len(recs), len(files))
	printLoss(stdout, loss)
	return 0
}
