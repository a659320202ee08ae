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
package hd44780
