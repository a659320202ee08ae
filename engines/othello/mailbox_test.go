package othello

// mailbox is a deliberately plain implementation of the rules, square by
// square, written from the spec to cross-check the bitboards.
type mailbox struct {
	mode    Mode
	size    int
	cells   []Color // size*size
	blocked []bool
	turn    Color
	placed  [3]int // by colour
}

func newMailbox(p Position) *mailbox {
	s := p.Size()
	m := &mailbox{mode: p.Mode, size: s, cells: make([]Color, s*s), blocked: make([]bool, s*s), turn: p.Turn}
	for _, sq := range p.Mode.BlockedSquares() {
		m.blocked[sq] = true
	}
	for sq := range m.cells {
		m.cells[sq] = p.At(sq)
	}
	m.placed[Black], m.placed[White] = p.Placed.Black, p.Placed.White
	return m
}

var mailboxDirs = [8][2]int{{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}}

// flips lists the squares colour c turns over by playing sq.
func (m *mailbox) flips(sq int, c Color) []int {
	var out []int
	r0, c0 := sq/m.size, sq%m.size
	for _, d := range mailboxDirs {
		var run []int
		r, col := r0+d[0], c0+d[1]
		for r >= 0 && r < m.size && col >= 0 && col < m.size {
			t := r*m.size + col
			if m.blocked[t] || m.cells[t] == Empty {
				run = nil
				break
			}
			if m.cells[t] == c {
				break
			}
			run = append(run, t)
			r, col = r+d[0], col+d[1]
		}
		if r < 0 || r >= m.size || col < 0 || col >= m.size {
			run = nil
		}
		out = append(out, run...)
	}
	return out
}

func (m *mailbox) centreOpen() bool {
	if m.mode != Reversi {
		return false
	}
	for _, sq := range []int{27, 28, 35, 36} {
		if m.cells[sq] == Empty {
			return true
		}
	}
	return false
}

// legal lists colour c's legal squares in increasing order.
func (m *mailbox) legal(c Color) []int {
	out := []int{}
	if m.mode == Reversi && m.placed[c] >= ReversiCap {
		return out
	}
	for sq := range m.cells {
		if m.cells[sq] != Empty || m.blocked[sq] {
			continue
		}
		if m.centreOpen() {
			if sq == 27 || sq == 28 || sq == 35 || sq == 36 {
				out = append(out, sq)
			}
			continue
		}
		if len(m.flips(sq, c)) > 0 {
			out = append(out, sq)
		}
	}
	return out
}

func (m *mailbox) play(sq int) {
	if sq == Pass {
		m.turn = m.turn.Opponent()
		return
	}
	if !m.centreOpen() {
		for _, f := range m.flips(sq, m.turn) {
			m.cells[f] = m.turn
		}
	}
	m.cells[sq] = m.turn
	m.placed[m.turn]++
	m.turn = m.turn.Opponent()
}
