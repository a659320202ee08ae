//go:build !unix

package record

import "io/fs"

// openNonblock is 0 where there are no FIFOs to open in a file's place.
const openNonblock = 0

// allocatedBytes is not known here: diskBytes rounds the size up.
func allocatedBytes(fs.FileInfo) (int64, bool) { return 0, false }
