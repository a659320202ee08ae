// Package imagetest holds the tests of the appliance image as a product:
// the Raspberry Pi image built with gok from this tree and read back (its
// hybrid MBR and FAT as the Pi reads them), the same image booted on QEMU's
// Raspberry Pi 3 Model B with its LEDs read back from the SoC, the offline
// VM image booted under qemu-system-aarch64, each through the owner's path
// (setup page, pairing code, token, play, update), the token file on the
// card's boot partition, and the Egaroucid cross-compile recipe.
//
// They run with `make test-image` (part of `make test`), which sets
// FLIPBOT_IMAGE_TESTS=1; where gok, qemu or a source tree is missing they
// say SKIPPED and why. They take minutes: images are built and booted.
//
// What fails is said where CI keeps it, at the parent test's end: each
// subtest's step at the time (stepTrail) and flipbot's last log lines. A
// guest whose page does not answer is described (does gokrazy's web UI
// answer, does QEMU run, QEMU's USB bus and network). One not on the
// network at all 150 s after power-on is power-cycled once, as an owner
// would replug a board, and the test says so at its end ("note: …"): the
// emulated Pi's first power-on in the card case, right after the pairing
// case's, twice never came up on the network in CI. A guest whose gokrazy
// answers but whose flipbot does not after 5 minutes fails: that is
// flipbot's.
//
// Files: doc.go only, and the tests: image_test.go (the Pi image, a bad
// token file refused, the Egaroucid recipe), pi_test.go (the Pi image on
// the emulated Pi 3B, its LEDs), vm_test.go (the offline VM, the card's
// token file), helpers_test.go. The package imports nothing of the module;
// its tests import gokrazy/disk, gokrazy/instance and gokrazy/vm, and
// gpio/led and gpio/led/ledtest (exceptions: the LED patterns they
// recognise), and build and
// run flipbot's commands as programs.
package imagetest
