package train

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/internal/atomicfile"
)

// Fit configures a least-squares fit of the pattern weights of one mode:
// per-sample Adam (β₁ 0.9, β₂ 0.999, no bias correction: features seen
// rarely move little) on the sparse features, an L2 penalty on every
// weight a sample touches, the learning rate halved after each epoch. The
// weights of each phase are disjoint, so the fit is per phase by
// construction.
type Fit struct {
	Mode othello.Mode
	// Layout is the layout to fit (one of eval.Layouts(Mode)); nil is the
	// one new fits use, eval.LayoutFor(Mode), which has the mobility
	// features in every mode.
	Layout *eval.Layout
	// Init, when set, are the weights the fit starts from (eval's
	// Layout.Dequantize: another layout of the mode with the same patterns
	// will do, e.g. generation 1's 8×8 weights for the layout with the
	// mobility features, whose tables then start at 0); otherwise every
	// weight starts at 0. A checkpoint, when present, takes precedence.
	Init   *eval.Weights
	Epochs int
	// LR is the first epoch's learning rate (in discs), L2 the penalty.
	LR, L2 float64
	// Seed orders the samples (the fit is deterministic for a seed).
	Seed uint64
	// Checkpoint, when set, is a file the state is saved to after every
	// epoch and resumed from.
	Checkpoint string
	Log        *slog.Logger
}

// PhaseLoss is the validation loss of one phase.
type PhaseLoss struct {
	Phase, N int
	// RMSE of the quantised weights and of always answering 0, in discs.
	RMSE, ZeroRMSE float64
}

type fitState struct {
	epoch   int
	w, m, v []float32
}

// Run fits weights to the training records and returns them with the loss
// of each phase on the validation records.
func (f *Fit) Run(ctx context.Context, trainSet, valid []Record) (*eval.Weights, []PhaseLoss, error) {
	log := f.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	l := f.Layout
	if l == nil {
		l = eval.LayoutFor(f.Mode)
	}
	start := time.Now()
	n := l.NumPhases() * l.PerPhase()
	st := &fitState{w: make([]float32, n), m: make([]float32, n), v: make([]float32, n)}
	if f.Init != nil {
		w0, err := l.Dequantize(f.Init)
		if err != nil {
			return nil, nil, fmt.Errorf("fit: initial weights: %w", err)
		}
		st.w = w0
	}
	if f.Checkpoint != "" {
		if err := st.load(f.Checkpoint); err == nil {
			log.Info("fit resumed", "checkpoint", f.Checkpoint, "epoch", st.epoch)
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
	}
	// The features of every sample, once: each epoch only reads them.
	// Samples are grouped by phase (the phases' weights are disjoint, so
	// this is the per-phase fit), which keeps one phase's weights in cache.
	nf := l.NumFeatures()
	feats := make([]int32, len(trainSet)*nf)
	byPhase := make([][]int32, l.NumPhases())
	for i := range trainSet {
		r := &trainSet[i]
		fs := feats[i*nf : (i+1)*nf]
		ph := l.Features(r.P, r.O, int(r.PLeft), int(r.OLeft), true, fs)
		for k := range fs {
			fs[k] += int32(ph * l.PerPhase())
		}
		byPhase[ph] = append(byPhase[ph], int32(i))
	}
	log.Info("fit features ready", "samples", len(trainSet), "elapsed", time.Since(start).Round(time.Second))
	// w, m, v of a weight side by side: one cache line per touch.
	wmv := make([]float32, 3*n)
	for i := range st.w {
		wmv[3*i], wmv[3*i+1], wmv[3*i+2] = st.w[i], st.m[i], st.v[i]
	}
	const b1, b2, eps = 0.9, 0.999, 1e-8
	startEpoch := st.epoch
	for ; st.epoch < f.Epochs; st.epoch++ {
		lr := float32(f.LR * math.Pow(0.5, float64(st.epoch)))
		l2 := float32(f.L2)
		var sse float64
		for ph, order := range byPhase {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			slices.Sort(order)
			rng := rand.New(rand.NewPCG(f.Seed, uint64(st.epoch)<<8|uint64(ph)))
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for _, i := range order {
				feat := feats[int(i)*nf : (int(i)+1)*nf]
				var pred float32
				for _, x := range feat {
					pred += wmv[3*x]
				}
				e := pred - float32(trainSet[i].Score)
				sse += float64(e * e)
				for _, x := range feat {
					j := 3 * int(x)
					wj := wmv[j : j+3 : j+3]
					g := e + l2*wj[0]
					wj[1] = b1*wj[1] + (1-b1)*g
					wj[2] = b2*wj[2] + (1-b2)*g*g
					wj[0] -= lr * wj[1] / (float32(math.Sqrt(float64(wj[2]))) + eps)
				}
			}
		}
		done := st.epoch + 1 - startEpoch
		el := time.Since(start)
		eta := time.Duration(float64(el) / float64(done) * float64(f.Epochs-st.epoch-1))
		log.Info("fit epoch done", "mode", f.Mode, "epoch", st.epoch+1, "of", f.Epochs, "lr", lr,
			"train_rmse", math.Sqrt(sse/float64(max(1, len(trainSet)))), "elapsed", el.Round(time.Second), "eta", eta.Round(time.Second))
		for i := range st.w {
			st.w[i], st.m[i], st.v[i] = wmv[3*i], wmv[3*i+1], wmv[3*i+2]
		}
		if f.Checkpoint != "" {
			st.epoch++
			err := st.save(f.Checkpoint)
			st.epoch--
			if err != nil {
				return nil, nil, err
			}
		}
	}
	for i := range st.w {
		st.w[i] = wmv[3*i]
	}
	w, err := l.Quantize(f.Mode, st.w)
	if err != nil {
		return nil, nil, err
	}
	loss, err := Validate(w, valid)
	return w, loss, err
}

// Validate returns the loss per phase of weights w on recs.
func Validate(w *eval.Weights, recs []Record) ([]PhaseLoss, error) {
	p, err := eval.NewPattern(w)
	if err != nil {
		return nil, err
	}
	l, err := w.Layout()
	if err != nil {
		return nil, err
	}
	loss := make([]PhaseLoss, l.NumPhases())
	var se, sz = make([]float64, len(loss)), make([]float64, len(loss))
	for i := range recs {
		r := &recs[i]
		empties := l.Size()*l.Size() - w.Mode.Blocked().Count() - r.P.Or(r.O).Count()
		ph := l.Phase(empties)
		var s int
		if l.Size() == 10 {
			s = p.Score10(r.P, r.O)
		} else {
			s = p.Score8(r.P.Lo, r.O.Lo, int(r.PLeft), int(r.OLeft))
		}
		d := float64(s)/eval.Disc - float64(r.Score)
		se[ph] += d * d
		sz[ph] += float64(r.Score) * float64(r.Score)
		loss[ph].N++
	}
	for ph := range loss {
		loss[ph].Phase = ph
		if n := float64(loss[ph].N); n > 0 {
			loss[ph].RMSE = math.Sqrt(se[ph] / n)
			loss[ph].ZeroRMSE = math.Sqrt(sz[ph] / n)
		}
	}
	return loss, nil
}

// Checkpoint file: magic "FBPC", epoch uint32, length uint32, then w, m, v
// as float32 bits, little-endian.
func (st *fitState) save(path string) error {
	buf := []byte("FBPC")
	buf = binary.LittleEndian.AppendUint32(buf, uint32(st.epoch))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(st.w)))
	for _, a := range [][]float32{st.w, st.m, st.v} {
		for _, x := range a {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
	}
	if err := atomicfile.WriteFile(path, buf, 0o644); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

func (st *fitState) load(path string) error {
	buf, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	n := len(st.w)
	if len(buf) != 12+12*n || string(buf[:4]) != "FBPC" || int(binary.LittleEndian.Uint32(buf[8:])) != n {
		return fmt.Errorf("checkpoint %s: not a checkpoint of this layout", path)
	}
	st.epoch = int(binary.LittleEndian.Uint32(buf[4:]))
	off := 12
	for _, a := range [][]float32{st.w, st.m, st.v} {
		for i := range a {
			a[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[off:]))
			off += 4
		}
	}
	return nil
}
