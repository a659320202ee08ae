// Package led blinks status LEDs in software.
//
// A Pattern (Off, On, SlowBlink, FastBlink, DoubleBlink, Heartbeat) is a
// repeating on/off rhythm. A Bank drives a fixed set of Outputs from one
// goroutine: Set gives each LED its pattern (latest wins, unchanged LEDs
// keep their phase) and Run does the timing with an injectable clock
// (internal/clock), so
// tests run on a fake clock and a recording pin.
//
// An Output is anything with Out(gpio.Level): a periph gpio.PinIO such as
// gpioreg.ByName("GPIO17"), wrapped by ActiveLow when the LED is wired to
// 3.3 V, or a SysfsLED for the board's own LEDs under /sys/class/leds
// (ACT), which takes the LED from its kernel trigger and gives it back on
// Close.
//
// The package never opens pins itself: the caller owns the outputs.
//
// Files: pattern.go ([Pattern]), bank.go ([Bank]), output.go ([Output],
// [ActiveLow]), sysfs.go ([SysfsLED]). Its fake
// for tests, the other way round (a pattern recognised in an LED's
// samples), is gpio/led/ledtest.
//
// It imports periph.io's gpio and internal/clock; its tests run on
// internal/clock/clocktest.
package led
