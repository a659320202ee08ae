// Package proc supervises one external engine process: it starts the
// program in its own process group, writes lines to its stdin, delivers the
// lines of its stdout on a channel, sends its stderr to a [log/slog] logger,
// and stops it by closing the whole group: a quit line, then SIGTERM, then
// SIGKILL, each after a grace period. The process gets an environment
// built from an allow-list of ours ([EngineEnv]: PATH, HOME, locale, …),
// never the whole of it: the bot token (FS_BOT_TOKEN) and any other
// secret of the parent stay out of engines.
//
// It also splits a command string into words the way a POSIX shell does for
// plain words and quotes ([SplitCommand]), without running a shell.
//
// The package is Unix-only (process groups and signals).
package proc
