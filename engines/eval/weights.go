package eval

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"

	"flipbot.dev/flipbot/engines/othello"
)

// Weights are the trained weights of one mode: for each phase of the mode's
// [Layout], one int16 per pattern index (in evaluation units, [Disc] = 100)
// and the cap table.
type Weights struct {
	Mode othello.Mode
	// LayoutID is the ID of the mode's layout the weights are for (one of
	// [Layouts]); 0 stands for the layout new fits use ([LayoutFor]).
	LayoutID uint32
	// W holds NumPhases × PerPhase weights, phase after phase.
	W []int16
}

// Weights file format, version 1 (all integers little-endian), gzip-
// compressed as a whole:
//
//	[0:4]   magic "FBPW"
//	[4:6]   version (1)
//	[6]     mode (othello.Mode)
//	[7]     board size (8 or 10)
//	[8:10]  phases
//	[10:14] layout ID (Layout.ID: the pattern shapes the weights fit)
//	[14:18] weights per phase
//	[18:]   phases × per-phase int16
//	last 4  CRC-32 (IEEE) of everything before it
const (
	weightsMagic   = "FBPW"
	weightsVersion = 1
	headerLen      = 18
	// maxWeightsFile bounds the uncompressed size read from a file.
	maxWeightsFile = 64 << 20
)

// ErrCorrupt is wrapped by every error about a malformed weights file.
var ErrCorrupt = errors.New("corrupt weights file")

// ErrUnknownLayout is wrapped (with [ErrCorrupt]) by the error about a
// weights file whose layout ID is none of its mode's [Layouts]: a file made
// by a build with other features.
var ErrUnknownLayout = errors.New("unknown layout")

// Layout returns the layout w is for; an ID this build does not know is an
// error wrapping [ErrUnknownLayout].
func (w *Weights) Layout() (*Layout, error) {
	if w.LayoutID == 0 {
		return LayoutFor(w.Mode), nil
	}
	if l := LayoutByID(w.Mode, w.LayoutID); l != nil {
		return l, nil
	}
	return nil, fmt.Errorf("weights of %s: %w %08x", w.Mode, ErrUnknownLayout, w.LayoutID)
}

// MarshalBinary encodes w in the weights file format (compressed).
func (w *Weights) MarshalBinary() ([]byte, error) {
	l, err := w.Layout()
	if err != nil {
		return nil, err
	}
	if len(w.W) != l.phases*l.perPhase {
		return nil, fmt.Errorf("weights of %s: %d values, the layout has %d", w.Mode, len(w.W), l.phases*l.perPhase)
	}
	raw := make([]byte, headerLen, headerLen+2*len(w.W)+4)
	copy(raw, weightsMagic)
	binary.LittleEndian.PutUint16(raw[4:], weightsVersion)
	raw[6] = byte(w.Mode)
	raw[7] = byte(l.size)
	binary.LittleEndian.PutUint16(raw[8:], uint16(l.phases))
	binary.LittleEndian.PutUint32(raw[10:], l.id)
	binary.LittleEndian.PutUint32(raw[14:], uint32(l.perPhase))
	for _, v := range w.W {
		raw = binary.LittleEndian.AppendUint16(raw, uint16(v))
	}
	raw = binary.LittleEndian.AppendUint32(raw, crc32.ChecksumIEEE(raw))
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("compress weights: %w", err)
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, fmt.Errorf("compress weights: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress weights: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary decodes a weights file. Every malformed input — not gzip,
// truncated, a wrong magic, version, checksum or a layout other than the
// one this build evaluates — is an error wrapping [ErrCorrupt].
func (w *Weights) UnmarshalBinary(data []byte) error {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxWeightsFile+1))
	if err != nil {
		return fmt.Errorf("%w: decompress: %v", ErrCorrupt, err)
	}
	if len(raw) > maxWeightsFile {
		return fmt.Errorf("%w: over %d bytes", ErrCorrupt, maxWeightsFile)
	}
	if len(raw) < headerLen+4 {
		return fmt.Errorf("%w: %d bytes, shorter than the header", ErrCorrupt, len(raw))
	}
	if string(raw[:4]) != weightsMagic {
		return fmt.Errorf("%w: bad magic %q", ErrCorrupt, raw[:4])
	}
	if v := binary.LittleEndian.Uint16(raw[4:]); v != weightsVersion {
		return fmt.Errorf("%w: version %d, this build reads %d", ErrCorrupt, v, weightsVersion)
	}
	body, sum := raw[:len(raw)-4], binary.LittleEndian.Uint32(raw[len(raw)-4:])
	if got := crc32.ChecksumIEEE(body); got != sum {
		return fmt.Errorf("%w: checksum %08x, the file says %08x", ErrCorrupt, got, sum)
	}
	mode := othello.Mode(raw[6])
	if int(mode) >= len(othello.AllModes()) {
		return fmt.Errorf("%w: unknown mode %d", ErrCorrupt, raw[6])
	}
	phases := int(binary.LittleEndian.Uint16(raw[8:]))
	id := binary.LittleEndian.Uint32(raw[10:])
	per := int(binary.LittleEndian.Uint32(raw[14:]))
	l := LayoutByID(mode, id)
	if l == nil {
		var known []string
		for _, k := range Layouts(mode) {
			known = append(known, fmt.Sprintf("%08x", k.id))
		}
		return fmt.Errorf("%w: %w: the file's layout id %08x is none of this build's %s layouts (%s): made by a build with other features",
			ErrCorrupt, ErrUnknownLayout, id, mode, strings.Join(known, ", "))
	}
	if int(raw[7]) != l.size || phases != l.phases || per != l.perPhase {
		return fmt.Errorf("%w: layout (size %d, %d phases, id %08x, %d per phase) is not this build's (%d, %d, %08x, %d)",
			ErrCorrupt, raw[7], phases, id, per, l.size, l.phases, l.id, l.perPhase)
	}
	if len(body)-headerLen != 2*phases*per {
		return fmt.Errorf("%w: %d weight bytes, want %d", ErrCorrupt, len(body)-headerLen, 2*phases*per)
	}
	w.Mode = mode
	w.LayoutID = id
	w.W = make([]int16, phases*per)
	for i := range w.W {
		w.W[i] = int16(binary.LittleEndian.Uint16(body[headerLen+2*i:]))
	}
	return nil
}
