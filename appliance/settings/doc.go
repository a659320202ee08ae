// Package settings is the owner's choices for the appliance: how many
// matches at once, threads and hash size, the engine per game mode, the
// LED pins and the display, the size cap of the game records. They are
// kept as JSON next to the token on /perm ([NewFile], through the store's
// atomic file) and applied without a reboot where possible.
//
// [Settings.Validate] is the one check of every field, for the settings
// page's form ([FromForm]) and for a stored file that may come from another
// device; [Parse] fills what a file leaves out with the defaults
// ([Default]), and a missing or damaged file means the defaults.
//
// Files: settings.go (all of it: the type, its defaults, validation, the
// form, the JSON file).
//
// It may import appliance/state (the status's summary of the engine
// settings), appliance/store (the file) and gpio (the display types and
// default pins), and nothing else of the appliance.
package settings
