//go:build linux

package errorserver

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// mountTmpfs mounts a tmpfs of size bytes on a temporary directory (unmounted when
// the test ends). It needs root: CI runs as root, so there it fails without; elsewhere
// the test is skipped.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	why := ""
	if os.Geteuid() != 0 {
		why = "not root"
	} else if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		why = "mount failed: " + string(bytes.TrimSpace(out))
	}
	if why != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot mount a tmpfs for the disk-fault test (%s): CI runs as root", why)
		}
		t.Skipf("cannot mount a tmpfs (%s): the full-disk test runs as root (CI fails without)", why)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// TestFullDiskUnderLoad: a real filesystem that fills up (a 24 MB tmpfs, filled by
// another file) under 16 clients: ingest answers 503 with Retry-After while it is
// full, readers answer, ingest is back within 5 s of space being freed, and no
// acknowledged event is missing after a reopen.
func TestFullDiskUnderLoad(t *testing.T) {
	mnt := mountTmpfs(t, "24m")
	dir := filepath.Join(mnt, "data")
	store := openTestStore(t, dir)
	srv, _ := startIngest(t, store)
	load := startFaultLoad(t, srv.URL+"/api/42/envelope/")
	waitFor(t, "events acknowledged before the disk fills", func() bool { return load.count(http.StatusOK) > 100 })

	filler, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte{1}, 64<<10)
	for {
		if _, err := filler.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			break
		}
	}
	full503 := load.count(http.StatusServiceUnavailable)
	waitFor(t, "503 answers on a full disk", func() bool { return load.count(http.StatusServiceUnavailable) > full503+20 })
	readersAnswer(t, store, "disk full")

	filler.Close()
	os.Remove(filler.Name())
	freed := time.Now()
	okBefore := load.count(http.StatusOK)
	for load.count(http.StatusOK) <= okBefore+10 {
		if time.Since(freed) > 5*time.Second {
			t.Fatal("ingest not back 5 s after space was freed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	acked := load.finish()
	store.Close()
	stored := storedIDs(t, dir)
	missing := 0
	for _, id := range acked {
		if !stored[id] {
			missing++
		}
	}
	t.Logf("%d acknowledged, %d answered 503 (disk full), %d stored", len(acked), load.count(http.StatusServiceUnavailable), len(stored))
	if missing != 0 {
		t.Errorf("%d acknowledged events are not stored", missing)
	}
}
