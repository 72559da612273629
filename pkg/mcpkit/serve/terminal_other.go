//go:build !linux

package serve

import "os"

// isTerminal reports whether f is a character device, the nearest portable test for
// a terminal without a terminal library.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
