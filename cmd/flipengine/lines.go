package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// errLineTooLong reports an input line over maxLine bytes; the line is
// skipped and reading goes on.
var errLineTooLong = errors.New("line too long")

// lineReader reads lines of at most maxLine bytes, skipping longer ones
// whole (unlike bufio.Scanner, which stops for good).
type lineReader struct {
	r *bufio.Reader
}

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: bufio.NewReaderSize(r, 64*1024)} }

// next returns the next line without its end of line. At a line over the
// limit it returns errLineTooLong after skipping it; at the end of input
// io.EOF (a last unterminated line is returned first).
func (l *lineReader) next() ([]byte, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxLine {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, errLineTooLong
			}
			return bytes.TrimRight(buf, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0 && !tooLong:
			return bytes.TrimRight(buf, "\r\n"), nil
		case errors.Is(err, io.EOF) && tooLong:
			return nil, errLineTooLong
		default:
			return nil, err
		}
	}
}
