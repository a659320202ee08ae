// Package boardview draws an Othello board in SVG for the web pages: the
// squares, the discs, the blocked squares, the coordinates (files a, b, …
// above the board, ranks 1, 2, … left of it, a1 the top left square as the
// rules name it), the mark of the last move and the ring of a better move.
// The appliance's replay page (appliance/web) and the arena's page and
// replays (arena) draw every board with it, so a board looks the same on
// both and is drawn by one piece of code.
//
// A board is given as its cells ([Board]); [Board.SVG] writes the
// element, escaped, for a page template. The SVG has a viewBox and no
// fixed size: [CSS] (board.css) sizes it to its container (at most
// 100 %), so it shrinks with a phone's screen. Scripts that step through
// positions in place find a square's disc by its data-sq attribute and
// move the marks (classes m-last and m-best) to [Centre].
//
// Files:
//
//   - board.go: [Board], [Board.SVG], the geometry ([Cell], [Margin],
//     [DiscR], [ViewSize], [Centre]).
//   - board.css: the board's colours and size, served by both pages
//     ([CSS]).
//
// A leaf: it imports nothing of the module (the callers turn their
// positions into cells), so every page's package may import it.
package boardview
