// Package hd44780 drives HD44780 character LCDs (16×2, 20×4) through a
// PCF8574 I²C backpack, the usual "I2C LCD" module at address 0x27
// (PCF8574) or 0x3F (PCF8574A).
//
// The backpack maps its eight output bits to the LCD: RS 0x01, RW 0x02
// (kept 0: write only), EN 0x04, backlight 0x08, D4–D7 0x10–0x80. The LCD
// runs in 4-bit mode: each nibble is written as two bytes, the first with
// EN high and the second with EN low (the falling edge latches), and every
// byte carries the backlight bit.
//
// The driver takes an i2c.Bus and does not own it. WriteLines rewrites
// only the rows that changed. SetGlyph loads the eight custom characters
// (codes 0–7) used for status icons.
//
// Sources: the HD44780U datasheet, Hitachi, "HD44780U (LCD-II) (Dot Matrix
// Liquid Crystal Display Controller/Driver)", ADE-207-272(Z): figure 24 on
// page 46 (initializing by instruction, 4-bit interface: more than 40 ms
// after power-on, 3, more than 4.1 ms, 3, more than 100 µs, 3, then 2)
// and table 6 (instructions and their execution times: 1.52 ms for clear
// and return home, 37 µs for the others). The PCF8574 (address 0x20–0x27)
// and PCF8574A (0x38–0x3F) datasheets (NXP, TI) give the backpack's
// quasi-bidirectional 8-bit port and its I²C addresses; which port bit
// drives which LCD pin is the backpack's wiring, not the chip's, as
// the hardware notes (shared/notes/hardware.md, beside the repository)
// record it.
//
// The driver is hd44780.go ([Dev], [New], [Opts]). It imports periph.io's
// I²C interface and nothing of the module.
package hd44780
