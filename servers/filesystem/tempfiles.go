package filesystem

// Temporary files of atomic writes: their one name pattern, hiding them from every
// listing, and removing the ones a killed server left behind.
//
// write_file and edit_file fill a temporary sibling of the target and rename it into
// place (atomicWrite). Its name is
//
//	"." + NAME + ".tmp-" + 12 lowercase hex digits (6 random bytes)
//
// where NAME is the target's base name cut to its first 64 bytes, leading dots removed
// (report.txt is written through .report.txt.tmp-3f9a0c1b2d4e). A server killed between
// creating and renaming it leaves that file behind. isOwnTempName is the only test of
// the pattern: the writer's names satisfy it (TestTempSiblingMatchesOwnPattern), every
// walk and listing hides regular files that match it, the watcher does not announce
// them, write_file and move_file refuse to create a file so named, and the cleanup
// below removes only what matches it.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

const (
	tempMarker   = ".tmp-"
	tempRandLen  = 6               // random bytes in a temporary name
	tempHexLen   = 2 * tempRandLen // their hex digits
	tempNameKeep = 64              // bytes of the target's name kept in the temporary name

	// StaleTempAge is how old (by modification time) a temporary file must be before
	// the cleanup removes it. A write sets the time when it fills the file; what
	// follows (fsync, close, rename) takes milliseconds to seconds, and the largest
	// write is bounded by the message size (4 MiB by default) or MaxEditBytes. Ten
	// minutes leaves a wide margin for a write in flight by another server on the same
	// directory, on a slow or network disk.
	StaleTempAge = 10 * time.Minute
	// DefaultTempCleanEntries bounds the entries one cleanup pass examines, over all
	// allowed directories together (breadth first, so shallow levels come first).
	DefaultTempCleanEntries = 200_000
	// DefaultTempCleanTime bounds how long one cleanup pass walks.
	DefaultTempCleanTime = 30 * time.Second
	// maxYoungTemps bounds how many too-young temporary files a pass remembers to look
	// at again once they are old enough.
	maxYoungTemps = 1000
)

// tempSibling names a hidden temporary file next to rel, of the pattern isOwnTempName
// recognizes.
func tempSibling(rel string) (string, error) {
	var rnd [tempRandLen]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	base := filepath.Base(rel)
	if len(base) > tempNameKeep {
		base = base[:tempNameKeep]
	}
	base = strings.TrimLeft(base, ".")
	return filepath.Join(filepath.Dir(rel), "."+base+tempMarker+hex.EncodeToString(rnd[:])), nil
}

// isOwnTempName reports whether a base name is exactly of the pattern tempSibling
// makes: a dot, at most 64 bytes not starting with a dot, ".tmp-", and exactly 12
// lowercase hex digits. Anything else (11 or 13 digits, capitals, no leading dot) is
// not this server's.
func isOwnTempName(name string) bool {
	n := len(name)
	if n < 1+len(tempMarker)+tempHexLen || name[0] != '.' {
		return false
	}
	for i := n - tempHexLen; i < n; i++ {
		if c := name[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	if name[n-tempHexLen-len(tempMarker):n-tempHexLen] != tempMarker {
		return false
	}
	mid := name[1 : n-tempHexLen-len(tempMarker)]
	return len(mid) <= tempNameKeep && !strings.HasPrefix(mid, ".")
}

// isOwnTempFile is a regular file named by isOwnTempName: what listings hide and the
// cleanup may remove. A directory or symbolic link of that name is the user's.
func isOwnTempFile(name string, mode fs.FileMode) bool {
	return mode.IsRegular() && isOwnTempName(name)
}

// refuseOwnTempName keeps write_file and move_file from creating a file that would look
// like an interrupted write: it would be hidden from listings and, once old, removed.
func refuseOwnTempName(display string) error {
	if isOwnTempName(filepath.Base(display)) {
		return fmt.Errorf("%s has the name pattern of this server's temporary files (.NAME.tmp- and 12 hex digits), which are hidden from listings and removed when stale; choose another name", display)
	}
	return nil
}

// TempCleanOptions bounds the cleanup of stale temporary files; zero values take the
// defaults.
type TempCleanOptions struct {
	MinAge     time.Duration // remove only files at least this old; default StaleTempAge
	MaxEntries int           // most entries one pass examines; default DefaultTempCleanEntries
	MaxTime    time.Duration // longest one pass walks; default DefaultTempCleanTime
	Logger     *slog.Logger  // defaults to slog.Default()
}

func (o TempCleanOptions) withDefaults() TempCleanOptions {
	if o.MinAge <= 0 {
		o.MinAge = StaleTempAge
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultTempCleanEntries
	}
	if o.MaxTime <= 0 {
		o.MaxTime = DefaultTempCleanTime
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// youngTemp is a temporary file too recent to remove when it was seen.
type youngTemp struct {
	root *Root
	rel  string // OS path relative to the root
	due  time.Time
}

// tempCleanReport is what one pass did.
type tempCleanReport struct {
	removed int
	young   []youngTemp
	visited int
	cut     bool // stopped at MaxEntries or MaxTime
}

// StartTempCleanup removes, in the background, the temporary files of interrupted
// writes under every root: regular files of this server's own name pattern whose
// modification time is at least MinAge old, anywhere in the trees (ignored directories
// and .git included, since writes can go there), walked through the roots without
// following symbolic links, within MaxEntries and MaxTime. Files of the pattern too
// young to remove are looked at once more when they reach MinAge, if the server still
// runs. It logs counts only (never names). Start it only on a server that may write: a
// read-only server removes nothing. The returned stop cancels the cleanup and waits for
// it; call it before closing the roots.
func StartTempCleanup(rs *Roots, opts TempCleanOptions) (stop func()) {
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rs.cleanTemps(ctx, opts)
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}

// cleanTemps is one pass, then one look at the files that were too young.
func (rs *Roots) cleanTemps(ctx context.Context, opts TempCleanOptions) {
	rep := rs.removeStaleTemps(ctx, opts)
	if rep.removed > 0 || len(rep.young) > 0 || rep.cut {
		opts.Logger.Info("temporary files of interrupted writes", "removed", rep.removed, "tooRecent", len(rep.young),
			"examined", rep.visited, "stoppedEarly", rep.cut)
	}
	if len(rep.young) == 0 || ctx.Err() != nil {
		return
	}
	var last time.Time
	for _, y := range rep.young {
		if y.due.After(last) {
			last = y.due
		}
	}
	// A second late, so that a clock step cannot make the one look come too early.
	t := time.NewTimer(time.Until(last) + time.Second)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	if n := removeYoungTemps(ctx, rep.young, opts.MinAge); n > 0 {
		opts.Logger.Info("temporary files of interrupted writes", "removed", n)
	}
}

// removeStaleTemps walks every root once, removing stale temporary files.
func (rs *Roots) removeStaleTemps(ctx context.Context, opts TempCleanOptions) tempCleanReport {
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.MaxTime)
	defer cancel()
	var rep tempCleanReport
	for _, root := range rs.roots {
		_, err := walkTree(ctx, root, ".", walkOptions{ownTemps: true}, func(e *walkEntry) error {
			rep.visited++
			if rep.visited > opts.MaxEntries {
				rep.cut = true
				return errStopWalk
			}
			if rep.visited%1024 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if !isOwnTempFile(e.name, e.info.Mode()) {
				return nil
			}
			switch removed, due := removeTempIfStale(e.dir, e.name, opts.MinAge); {
			case removed:
				rep.removed++
			case !due.IsZero() && len(rep.young) < maxYoungTemps:
				rep.young = append(rep.young, youngTemp{root: root, rel: filepath.FromSlash(e.rel), due: due})
			}
			return nil
		})
		if errors.Is(err, context.DeadlineExceeded) {
			rep.cut = true
		}
		if err != nil || rep.cut {
			break
		}
	}
	return rep
}

// removeYoungTemps looks again at files that were too recent; it returns how many it
// removed.
func removeYoungTemps(ctx context.Context, young []youngTemp, minAge time.Duration) int {
	n := 0
	for _, y := range young {
		if ctx.Err() != nil {
			break
		}
		dir, err := y.root.os.OpenRoot(filepath.Dir(y.rel))
		if err != nil {
			continue
		}
		if removed, _ := removeTempIfStale(dir, filepath.Base(y.rel), minAge); removed {
			n++
		}
		dir.Close()
	}
	return n
}

// removeTempIfStale removes name from dir when it is still a regular file of the
// temporary pattern (checked with Lstat, so a symbolic link is never followed) at least
// minAge old. Otherwise, for a file of the pattern that is too recent, it returns when
// it will be old enough.
func removeTempIfStale(dir *os.Root, name string, minAge time.Duration) (removed bool, due time.Time) {
	st, err := dir.Lstat(name)
	if err != nil || !isOwnTempFile(name, st.Mode()) {
		return false, time.Time{}
	}
	if age := time.Since(st.ModTime()); age < minAge {
		return false, st.ModTime().Add(minAge)
	}
	return unlinkFile(dir, name) == nil, time.Time{}
}
