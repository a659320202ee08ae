// Package store keeps the appliance's files on /perm, and reads the token
// file an owner may put on the SD card.
//
// Every file is kept the same way, by one generic [File]: mode 0600 in a
// directory created 0700, every write atomic ([FS.WriteFile]: a temp file
// fsynced, renamed over the old one, the directory fsynced), so that a
// power cut at any point leaves the old or the new content, never a torn
// one; the temp files of an interrupted write are removed by the next. A
// [Format] says what is kept and how (the token's, the settings'). The
// stages of a write are named ([Stage]) so that tests cut a write short
// where a power cut would, or make the file system read-only, through
// [FS].
//
// The token is a flipsight.Token from the moment it is read ([ParseToken],
// [ParseTokenFile]): it never prints; only the token file's encoder
// reveals it, to write it.
//
// Files:
//
//   - file.go: [File] and [Format], one value in one file, read as a
//     regular file (no symbolic link followed, never blocking) with a
//     size limit ([ReadFileLimit], [ErrTooLarge], [ErrNotRegular]: those
//     of internal/atomicfile).
//   - atomic.go: [FS], the atomic write and its stages, [SyncDir],
//     [CleanTemps], [IsReadOnly].
//   - token.go: the token's form ([ValidateToken], [ParseToken]) and its
//     file ([NewTokenFile], [EncodeToken], [ErrNoToken]).
//   - card.go: the token file on the card's boot partition
//     ([BootTokenFileName], [ParseTokenFile], [BootPartition]).
//
// It may import flipsight (the token's type), config (the token's
// environment variable's name) and appliance/bootfs (the card's boot partition), and
// nothing else of the appliance.
package store
