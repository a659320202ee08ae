// Package train makes the data and fits the weights of the pattern
// evaluation of package eval: positions from WTHOR game records (std) and
// from self-play out of random 12-disc starts (every mode), labelled with
// the game's outcome — exact from the last empties on — and a least-squares
// fit with Adam on the sparse pattern features, per phase, L2-regularised.
//
// Every step is deterministic for a given seed and resumable: data is made
// in numbered chunks, each written atomically and skipped when present.
//
// Files: record.go ([Record], the data files), wthor.go (WTHOR game
// records), selfplay.go ([SelfPlay]), fit.go ([Fit], [Validate]).
//
// It may import engines/eval, engines/othello and engines/search (the
// self-play's engine); cmd/flipengine runs it.
package train

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/internal/atomicfile"
)

// Record is one labelled position: the discs of the side to move (P) and of
// its opponent (O), the discs each may still place (reversi; 255 elsewhere)
// and the label, the final disc difference for the side to move under the
// mode's scoring.
type Record struct {
	P, O         othello.Bits
	PLeft, OLeft uint8
	Score        int8
}

// Data file format: an 8-byte header — magic "FBPD", version uint16 (1),
// mode byte, reserved byte — then 35-byte records: P.Lo, P.Hi, O.Lo, O.Hi
// (uint64, little-endian), PLeft, OLeft, Score.
const (
	dataMagic   = "FBPD"
	dataVersion = 1
	recordLen   = 35
	capsNone    = 255
)

// ErrBadData is wrapped by errors about malformed data files.
var ErrBadData = errors.New("bad data file")

func (r *Record) append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, r.P.Lo)
	b = binary.LittleEndian.AppendUint64(b, r.P.Hi)
	b = binary.LittleEndian.AppendUint64(b, r.O.Lo)
	b = binary.LittleEndian.AppendUint64(b, r.O.Hi)
	return append(b, r.PLeft, r.OLeft, byte(r.Score))
}

func decodeRecord(b []byte) Record {
	return Record{
		P:     othello.Bits{Lo: binary.LittleEndian.Uint64(b), Hi: binary.LittleEndian.Uint64(b[8:])},
		O:     othello.Bits{Lo: binary.LittleEndian.Uint64(b[16:]), Hi: binary.LittleEndian.Uint64(b[24:])},
		PLeft: b[32], OLeft: b[33], Score: int8(b[34]),
	}
}

// WriteData writes recs as a data file of mode to path crash-safely (a
// temporary file fsynced and renamed into place, the directory fsynced),
// mode 0600.
func WriteData(path string, mode othello.Mode, recs []Record) error {
	err := atomicfile.Write(path, 0o600, func(w io.Writer) error {
		buf := []byte(dataMagic)
		buf = binary.LittleEndian.AppendUint16(buf, dataVersion)
		buf = append(buf, byte(mode), 0)
		for i := range recs {
			buf = recs[i].append(buf)
			if len(buf) > 1<<16 {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		_, err := w.Write(buf)
		return err
	})
	if err != nil {
		return fmt.Errorf("write data %s: %w", path, err)
	}
	return nil
}

// ReadData reads a data file and returns its mode and records, appended to
// recs.
func ReadData(r io.Reader, recs []Record) (othello.Mode, []Record, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var hdr [8]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return 0, recs, fmt.Errorf("%w: header: %v", ErrBadData, err)
	}
	if string(hdr[:4]) != dataMagic || binary.LittleEndian.Uint16(hdr[4:]) != dataVersion {
		return 0, recs, fmt.Errorf("%w: not a version %d data file", ErrBadData, dataVersion)
	}
	mode := othello.Mode(hdr[6])
	if int(mode) >= len(othello.AllModes()) {
		return 0, recs, fmt.Errorf("%w: unknown mode %d", ErrBadData, hdr[6])
	}
	var b [recordLen]byte
	for {
		_, err := io.ReadFull(br, b[:])
		if errors.Is(err, io.EOF) {
			return mode, recs, nil
		}
		if err != nil {
			return mode, recs, fmt.Errorf("%w: record %d: %v", ErrBadData, len(recs), err)
		}
		recs = append(recs, decodeRecord(b[:]))
	}
}

// ReadDataFile reads the data file at path, appending to recs, and checks
// that it holds positions of mode.
func ReadDataFile(path string, mode othello.Mode, recs []Record) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return recs, fmt.Errorf("read data: %w", err)
	}
	defer f.Close()
	m, recs, err := ReadData(f, recs)
	if err != nil {
		return recs, fmt.Errorf("%s: %w", path, err)
	}
	if m != mode {
		return recs, fmt.Errorf("%s: %w: positions of %s, want %s", path, ErrBadData, m, mode)
	}
	return recs, nil
}
