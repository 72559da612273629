package filesystem

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Which writes are confirmed. A write that destroys something asks the user first,
// showing what will be lost or changed: write_file over an existing file (its size
// and first lines), edit_file unless dryRun (the diff), move_file with overwrite
// onto an existing file (the file replaced), copy_file with overwrite onto an
// existing file (the same), delete_file (the file's size and first lines) and
// delete_directory (what it holds: counts, size, the first entries). Creating a new
// file, create_directory, a copy to a free path and a move or rename onto a free path
// destroy nothing and are not confirmed. The
// question is mcpkit's Request.Confirm, as on every server here; --no-confirm
// (ServerOptions.NoConfirm) turns it off for hosts that confirm each call themselves.
//
// Each confirmation is bound to the version of the file it shows (fileVersion: size,
// modification time and content hash): an answer is not taken for a file changed
// after the user was asked, and a confirmation replayed after its write (on any
// instance sharing the files) finds the file changed and writes nothing.

// confirmFunc asks the user to confirm message, bound to bind (req.Confirm in the
// tool layer). The file layer's exported methods pass nil: no question.
type confirmFunc func(message string, bind ...string) error

const (
	// headLines and headBytes bound the start of a file shown in a confirmation.
	headLines = 10
	headBytes = 1 << 10
	// maxConfirmDiff bounds the diff an edit's confirmation shows.
	maxConfirmDiff = 16 << 10
	// maxHashBytes is the largest file whose content is hashed into its version;
	// larger files are identified by size and modification time alone.
	maxHashBytes = 64 << 20
)

// fileVersion identifies what is at rel now: type, size, modification time and, for
// a regular file of up to maxHashBytes, the SHA-256 of its content.
func fileVersion(root *os.Root, rel string, st fs.FileInfo) (string, error) {
	v := fmt.Sprintf("%s %d %d", st.Mode(), st.Size(), st.ModTime().UnixNano())
	if !st.Mode().IsRegular() || st.Size() > maxHashBytes {
		return v, nil
	}
	f, err := openForRead(root, rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxHashBytes+1)); err != nil {
		return "", err
	}
	return v + " " + hex.EncodeToString(h.Sum(nil)), nil
}

// contentVersion is fileVersion for a file already read whole.
func contentVersion(st fs.FileInfo, data []byte) string {
	sum := sha256.Sum256(data)
	return fmt.Sprintf("%s %d %d %s", st.Mode(), st.Size(), st.ModTime().UnixNano(), hex.EncodeToString(sum[:]))
}

// describeExisting says what an existing entry is, for a confirmation that replaces
// it: "12 bytes, last modified 2026-01-02 15:04:05 UTC." and the first lines of a
// text file.
func describeExisting(root *os.Root, rel string, st fs.FileInfo) string {
	mod := st.ModTime().UTC().Format(time.DateTime + " UTC")
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		target, _ := root.Readlink(rel)
		return fmt.Sprintf("a symbolic link to %s (last modified %s); the link is replaced, not what it points to.", target, mod)
	case !st.Mode().IsRegular():
		return fmt.Sprintf("not a regular file (%s).", st.Mode().Type())
	}
	desc := fmt.Sprintf("%d bytes, last modified %s.", st.Size(), mod)
	if st.Size() == 0 {
		return desc
	}
	f, err := openForRead(root, rel)
	if err != nil {
		return desc
	}
	defer f.Close()
	buf := make([]byte, headBytes)
	n, _ := io.ReadFull(f, buf)
	return desc + "\n" + strings.TrimSuffix(headOf(buf[:n], st.Size(), "It begins:"), "\n")
}

// headOf shows the first lines of a file whose first bytes are b (of size in all),
// or says that it is binary.
func headOf(b []byte, size int64, label string) string {
	sn := sniffEncoding(b, int64(len(b)) >= size)
	if sn.binary {
		return "Its content is binary and not shown."
	}
	text := toLF(decodeText(b, sn.enc))
	lines := strings.SplitAfter(text, "\n")
	cut := int64(len(b)) < size
	if len(lines) > headLines {
		lines, cut = lines[:headLines], true
	}
	head := strings.Join(lines, "")
	if !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	if cut {
		head += "[…]\n"
	}
	return label + "\n" + head
}

// replacements says how many replacements an edit makes.
func replacements(n int) string {
	if n == 1 {
		return "1 replacement"
	}
	return fmt.Sprintf("%d replacements", n)
}

// newContentHead shows the start of the content about to be written.
func newContentHead(content string) string {
	head := content
	if len(head) > headBytes {
		head, _ = mcpkit.TruncateText(head, headBytes)
	}
	return headOf([]byte(head), int64(len(content)), "The new content begins:")
}

// confirmDiff is the diff an edit's confirmation shows, cut at maxConfirmDiff.
func confirmDiff(diff string) string {
	shown, cut := mcpkit.TruncateText(diff, maxConfirmDiff)
	if cut {
		shown += fmt.Sprintf("\n[the diff is cut here: %d more bytes are not shown; decline, and call edit_file with dryRun to read all of it or split the edit]", len(diff)-len(shown))
	}
	return shown
}
