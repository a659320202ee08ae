package train

import (
	"encoding/binary"
	"errors"
	"fmt"

	"flipbot.dev/flipbot/engines/othello"
)

// ErrBadWthor is wrapped by errors about malformed WTHOR files.
var ErrBadWthor = errors.New("bad WTHOR file")

// WthorGame is one game of a WTHOR file.
type WthorGame struct {
	// Black's final and theoretical disc counts (the theoretical one is
	// perfect play from TheoryDepth empties on).
	BlackDiscs, BlackTheory int
	// Moves are square numbers (row*8+col, a1 = 0).
	Moves []int
}

// WthorFile is a decoded WTHOR .wtb file.
type WthorFile struct {
	Year        int
	TheoryDepth int
	Games       []WthorGame
}

// ParseWthor decodes a WTHOR game file (8×8 games only).
func ParseWthor(data []byte) (*WthorFile, error) {
	const hdr, rec = 16, 68
	if len(data) < hdr {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the header", ErrBadWthor, len(data))
	}
	n := int(binary.LittleEndian.Uint32(data[4:]))
	if size := data[12]; size != 0 && size != 8 {
		return nil, fmt.Errorf("%w: board size %d, not 8", ErrBadWthor, size)
	}
	if len(data) < hdr+n*rec || n < 0 {
		return nil, fmt.Errorf("%w: %d games need %d bytes, the file has %d", ErrBadWthor, n, hdr+n*rec, len(data))
	}
	f := &WthorFile{Year: int(binary.LittleEndian.Uint16(data[10:])), TheoryDepth: int(data[14])}
	for i := 0; i < n; i++ {
		r := data[hdr+i*rec : hdr+(i+1)*rec]
		g := WthorGame{BlackDiscs: int(r[6]), BlackTheory: int(r[7])}
		if g.BlackDiscs > 64 || g.BlackTheory > 64 {
			return nil, fmt.Errorf("%w: game %d: disc counts %d/%d", ErrBadWthor, i, g.BlackDiscs, g.BlackTheory)
		}
		for _, b := range r[8:] {
			if b == 0 {
				break
			}
			row, col := int(b)/10, int(b)%10
			if row < 1 || row > 8 || col < 1 || col > 8 {
				return nil, fmt.Errorf("%w: game %d: move byte %d", ErrBadWthor, i, b)
			}
			g.Moves = append(g.Moves, (row-1)*8+col-1)
		}
		f.Games = append(f.Games, g)
	}
	return f, nil
}

// Records replays g from the std start and returns its positions (side to
// move with a legal move), labelled by black's theoretical score while
// depth or more squares are empty and by the final score after (the
// theoretical score is perfect play from that point only). A move the rules
// forbid is an error.
func (g *WthorGame) Records(depth int) ([]Record, error) {
	pos := othello.New(othello.Std)
	theory, final := 2*g.BlackTheory-64, 2*g.BlackDiscs-64
	var out []Record
	for i, mv := range g.Moves {
		if pos.Legal().IsZero() {
			pos, _ = pos.Play(othello.Pass)
		}
		r := record(pos)
		label := final
		if pos.Empties().Count() >= depth {
			label = theory
		}
		if pos.Turn == othello.White {
			label = -label
		}
		r.Score = int8(label)
		out = append(out, r)
		next, err := pos.Play(mv)
		if err != nil {
			return nil, fmt.Errorf("move %d: %w", i+1, err)
		}
		pos = next
	}
	return out, nil
}
