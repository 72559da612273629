//go:build !unix

package filesystem

import "os"

// openForRead opens name through r for reading.
func openForRead(r *os.Root, name string) (*os.File, error) {
	return r.Open(name)
}
