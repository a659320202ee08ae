//go:build !unix

package record

import "io/fs"

// allocatedBytes is not known here: diskBytes rounds the size up.
func allocatedBytes(fs.FileInfo) (int64, bool) { return 0, false }
