//go:build !linux

package main

import (
	"io"
	"os"
)

// openStdin returns standard input as a reader whose Close interrupts a
// Read in progress, so that when a signal ends the connection, the Conn's
// reading goroutine returns at once instead of waiting for the client's
// next line. Closing os.Stdin does not interrupt a read in progress, so a
// goroutine copies stdin into a pipe; that goroutine may stay blocked in
// its read until the process exits, which it is about to. (On Linux,
// stdin_linux.go does without it.)
func openStdin() io.ReadCloser {
	r, w := io.Pipe()
	go func() {
		_, err := io.Copy(w, os.Stdin)
		w.CloseWithError(err) // nil: the reader sees io.EOF
	}()
	return r
}
