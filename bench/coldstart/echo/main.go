// Command echo writes every line it reads on stdin back to stdout: the bare Go
// process whose cold start the servers' first answers are measured against (same
// toolchain, same build flags, nothing but the runtime and a read and a write).
package main

import (
	"bufio"
	"os"
)

func main() {
	br := bufio.NewReaderSize(os.Stdin, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if _, werr := os.Stdout.Write(line); werr != nil {
				os.Exit(1)
			}
		}
		if err != nil {
			return
		}
	}
}
