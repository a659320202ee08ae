package othello

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// playRandomGame plays a game of mode from its start with moves chosen by
// next (given the number of choices), checking every position against the
// mailbox implementation. It returns the number of plies played.
func playRandomGame(t testing.TB, mode Mode, next func(n int) int) int {
	pos := New(mode)
	mb := newMailbox(pos)
	plies := 0
	for {
		want := mb.legal(mb.turn)
		got := pos.LegalMoves()
		require.Equal(t, want, got, "legal moves after %d plies\n%s", plies, pos)
		require.Equal(t, mb.legal(mb.turn.Opponent()), pos.LegalFor(pos.Turn.Opponent()).Squares(), "opponent's legal moves after %d plies", plies)
		if len(got) == 0 {
			if len(mb.legal(mb.turn.Opponent())) == 0 {
				require.True(t, pos.GameOver())
				return plies
			}
			require.True(t, pos.MustPass())
			var err error
			pos, err = pos.Play(Pass)
			require.NoError(t, err)
			mb.play(Pass)
			plies++
			continue
		}
		require.False(t, pos.GameOver())
		sq := got[next(len(got))]
		var err error
		pos, err = pos.Play(sq)
		require.NoError(t, err)
		mb.play(sq)
		plies++
		require.Equal(t, mb.turn, pos.Turn)
		require.Equal(t, mb.placed[Black], pos.Placed.Black)
		require.Equal(t, mb.placed[White], pos.Placed.White)
		for i, c := range mb.cells {
			require.Equal(t, c, pos.At(i), "square %s after %d plies", SquareName(i, pos.Size()), plies)
		}
	}
}

func TestRulesMatchMailbox(t *testing.T) {
	games := 200
	if testing.Short() {
		games = 40
	}
	for _, mode := range AllModes() {
		t.Run(mode.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(mode)+1, 7))
			for g := 0; g < games; g++ {
				plies := playRandomGame(t, mode, func(n int) int { return rng.IntN(n) })
				assert.Greater(t, plies, 8)
			}
		})
	}
}

// FuzzRulesMatchMailbox plays a game whose mode and moves come from the
// fuzzer's bytes and cross-checks the bitboards with the mailbox.
func FuzzRulesMatchMailbox(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3})
	f.Add([]byte{3, 200, 7, 7, 9})
	f.Add([]byte{4, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		mode := Mode(data[0] % 5)
		data = data[1:]
		i := 0
		playRandomGame(t, mode, func(n int) int {
			if len(data) == 0 {
				return 0
			}
			v := int(data[i%len(data)]) + i/len(data)
			i++
			return v % n
		})
	})
}

func TestReversiRules(t *testing.T) {
	pos := New(Reversi)
	assert.Equal(t, []int{27, 28, 35, 36}, pos.LegalMoves(), "only the centre while it is open")
	var err error
	for _, sq := range []int{27, 28, 36} {
		pos, err = pos.Play(sq)
		require.NoError(t, err)
	}
	assert.Equal(t, []int{35}, pos.LegalMoves())
	pos, err = pos.Play(35)
	require.NoError(t, err)
	b, w := pos.Count()
	assert.Equal(t, [2]int{2, 2}, [2]int{b, w}, "centre placements flip nothing")
	assert.Equal(t, Placed{Black: 2, White: 2}, pos.Placed)
	assert.NotEmpty(t, pos.LegalMoves(), "normal rules after the centre")

	capped := pos
	capped.Placed = Placed{Black: ReversiCap, White: 2}
	assert.Empty(t, capped.LegalMoves(), "a colour with 32 placed discs has no move")
	assert.NotEmpty(t, capped.LegalFor(White).Squares())
	_, err = capped.Play(capped.LegalFor(White).First())
	assert.ErrorIs(t, err, ErrIllegalMove)
	next, err := capped.Play(Pass)
	require.NoError(t, err, "a capped colour passes")
	assert.Equal(t, White, next.Turn)
}

func TestPlayRejects(t *testing.T) {
	pos := New(Std)
	_, err := pos.Play(0)
	assert.ErrorIs(t, err, ErrIllegalMove)
	_, err = pos.Play(Pass)
	assert.ErrorIs(t, err, ErrIllegalMove, "pass with legal moves")
	_, err = pos.Play(27)
	assert.ErrorIs(t, err, ErrIllegalMove, "occupied square")
	_, err = pos.Play(200)
	assert.ErrorIs(t, err, ErrIllegalMove)

	oct := New(Octagon)
	for _, sq := range Octagon.BlockedSquares() {
		assert.False(t, oct.Legal().Has(sq))
	}
}

func TestWinner(t *testing.T) {
	pos := Position{Mode: Std, Black: Bits{Lo: 0b111}, White: Bits{Lo: 0b1000}, Turn: Black}
	assert.Equal(t, Black, pos.Winner())
	pos.Mode = Anti
	assert.Equal(t, White, pos.Winner(), "anti: fewer discs wins")
	pos.White = Bits{Lo: 0b111000}
	assert.Equal(t, Empty, pos.Winner())
}

func TestStartPositions(t *testing.T) {
	assert.Equal(t, []int{19, 26, 37, 44}, New(Std).LegalMoves())
	g := New(Grand)
	assert.Equal(t, White, g.At(44))
	assert.Equal(t, Black, g.At(45))
	assert.Equal(t, Black, g.At(54))
	assert.Equal(t, White, g.At(55))
	assert.Len(t, g.LegalMoves(), 4)
	assert.Equal(t, g.LegalMoves(), New(Octagon).LegalMoves())
}

// TestRandomBoardsMatchMailbox checks moves and flips on random disc
// patterns, reachable or not, for both board sizes.
func TestRandomBoardsMatchMailbox(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 3000
	if testing.Short() {
		n = 500
	}
	for _, mode := range []Mode{Std, Grand, Octagon} {
		for i := 0; i < n; i++ {
			var pos Position
			pos.Mode, pos.Turn = mode, Color(1+rng.IntN(2))
			usable := New(mode).Empties().Or(New(mode).Black).Or(New(mode).White)
			for _, sq := range usable.Squares() {
				switch rng.IntN(3) {
				case 1:
					pos.Black = pos.Black.Or(Bit(sq))
				case 2:
					pos.White = pos.White.Or(Bit(sq))
				}
			}
			mb := newMailbox(pos)
			require.Equal(t, mb.legal(pos.Turn), pos.LegalMoves(), "%s", pos)
			for sq := range mb.cells {
				if pos.At(sq) != Empty || mode.Blocked().Has(sq) {
					continue
				}
				want := mb.flips(sq, pos.Turn)
				require.Equal(t, len(want), pos.Flips(sq).Count(), "flips at %s\n%s", SquareName(sq, pos.Size()), pos)
				for _, f := range want {
					require.True(t, pos.Flips(sq).Has(f))
				}
			}
		}
	}
}

// TestLegal10LongRuns places every run of one to eight opponent discs in
// every direction from every square of a 10×10 board, ended by an empty
// square: the bitboard moves match the mailbox's (the fill steps of
// Legal10 must reach eight discs, no more and no fewer).
func TestLegal10LongRuns(t *testing.T) {
	dirs := [][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {-1, -1}, {1, -1}, {-1, 1}}
	checked := 0
	for _, mode := range []Mode{Grand, Octagon} {
		for sq := 0; sq < 100; sq++ {
			for _, d := range dirs {
				for k := 1; k <= 8; k++ {
					r, c := sq/10+(k+1)*d[0], sq%10+(k+1)*d[1]
					if r < 0 || r > 9 || c < 0 || c > 9 {
						continue
					}
					pos := Position{Mode: mode, Turn: Black, Black: Bit(sq)}
					for i := 1; i <= k; i++ {
						pos.White = pos.White.Or(Bit(sq + i*(10*d[0]+d[1])))
					}
					if !pos.Black.Or(pos.White).And(mode.Blocked()).IsZero() {
						continue
					}
					require.Equal(t, newMailbox(pos).legal(Black), pos.LegalMoves(), "%s", pos)
					checked++
				}
			}
		}
	}
	require.Greater(t, checked, 2000)
}
