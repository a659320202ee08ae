// Package ssd1306 drives the common 0.96" and 1.3" monochrome I²C OLED
// modules: SSD1306 at 128×64 or 128×32, and SH1106 at 128×64 (132-column
// RAM, image at column 2).
//
// The driver takes an i2c.Bus and an address (0x3C or 0x3D) and does not
// own the bus. New sends the controller's init sequence; Draw converts an
// image to the controller's page layout (a byte is a vertical strip of 8
// pixels, least significant bit on top) and writes only the pages that
// changed since the last Draw, in page addressing mode, which both chips
// support. A full frame is about 93 ms at the Pi's 100 kHz; a clock
// ticking in one text line is one or two pages (≈12 ms each).
//
// Every I²C write starts with a control byte: 0x00 when commands follow,
// 0x40 when display data follows.
//
// Sources: the SSD1306 datasheet, Solomon Systech, "128 x 64 Dot Matrix
// OLED/PLED Segment/Common Driver with Controller", Rev 1.1 (Apr 2008):
// section 8.1.5 (I²C interface, the control byte), 8.7 (GDDRAM: 8 pages,
// D0 the top row of a page) and 9 (command table). The charge pump
// command (8Dh, 14h: on) is not in Rev 1.1; it came in Rev 1.2 (section
// 10, Charge Pump Regulator, per the datasheet's revision history). The
// init sequence as a whole is the hardware notes' (shared/notes/hardware.md
// beside the repository, "SSD1306 / SH1106 OLED"), the common one for
// these modules; SH1106's DC-DC command
// (ADh, 8Bh) is from Sino Wealth's SH1106 datasheet.
//
// The driver is ssd1306.go ([Dev], [New], [Opts]). It imports periph.io's
// I²C and display interfaces and nothing of the module.
package ssd1306
