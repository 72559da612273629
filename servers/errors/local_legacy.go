package errorserver

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"

	"github.com/mcpkit/reference/servers/errors/event"
)

// lockIngest takes the data directory's ingest lock: the process that holds it is the
// one that writes the store.
func lockIngest(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, ingestLockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the ingest lock in %s: %w", dir, err)
	}
	if err := tryLock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w (data directory %s; %v): open it to read only (an MCP server does so by itself), or give this process its own --data directory", ErrIngestedElsewhere, dir, err)
	}
	return f, nil
}

// An earlier version kept events in DataDir/events: segment files of CRC-framed
// records, each an encoded event. They are imported into the database once, at the
// first open by the ingesting process, and the directory is renamed to
// events.imported (delete it when you no longer want the old copy).
const (
	legacyDir         = "events"
	legacyImportedDir = "events.imported"
	legacyMagic       = "MCPKEVL1"
	legacyHeaderSize  = 16
	legacyRetention   = "retention.json"
)

// checkLegacyUnlocked refuses to start while an earlier version still runs on the
// directory (it holds the old log's lock).
func checkLegacyUnlocked(dataDir string) error {
	f, err := os.OpenFile(filepath.Join(dataDir, legacyDir, "LOCK"), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", filepath.Join(dataDir, legacyDir, "LOCK"), err)
	}
	defer f.Close()
	if err := tryLock(f); err != nil {
		return fmt.Errorf("%w: an earlier version of mcp-server-errors is running on %s (its event log %s is locked): stop it, then start this version, which imports its events", backend.ErrConfig, dataDir, filepath.Join(dataDir, legacyDir))
	}
	return nil
}

// importLegacy imports the event log of an earlier version, if there is one. Events
// already in the database (an import cut short by a crash) are skipped by id.
func (s *LocalStore) importLegacy() error {
	dir := filepath.Join(s.cfg.DataDir, legacyDir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	start := time.Now()
	names, err := filepath.Glob(filepath.Join(dir, "*.seg"))
	if err != nil {
		return err
	}
	if err := s.markImporting(true); err != nil {
		return err
	}
	slices.Sort(names)
	var imported, unreadable int
	var batch []*preparedEvent
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := s.w.Load().write(batch, nil)
		batch = batch[:0]
		return err
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("import the earlier version's events: %w", err)
		}
		if !strings.HasPrefix(string(data), legacyMagic) {
			if len(data) < len(legacyMagic) {
				continue
			}
			return fmt.Errorf("%w: %s is not an event log segment of an earlier version: move it out of %s, then start again", backend.ErrConfig, name, dir)
		}
		for off := len(legacyMagic); off < len(data); {
			payload, at, size, ok := decodeLegacyRecord(data[off:])
			if !ok {
				break // a torn write at the end, or damage: the rest of this segment is unreadable
			}
			off += size
			e, err := decodeLegacyEvent(payload)
			if err != nil {
				unreadable++
				continue
			}
			p, err := s.prepare(e, at)
			if err != nil {
				unreadable++
				continue
			}
			batch = append(batch, p)
			imported++
			if len(batch) >= 1000 {
				if err := flush(); err != nil {
					return fmt.Errorf("import the earlier version's events: %w", err)
				}
			}
		}
	}
	if err := flush(); err != nil {
		return fmt.Errorf("import the earlier version's events: %w", err)
	}
	if err := s.markImporting(false); err != nil {
		return err
	}
	if b, err := os.ReadFile(filepath.Join(s.cfg.DataDir, legacyRetention)); err == nil {
		var st struct {
			DroppedEvents int64     `json:"droppedEvents"`
			LastDrop      time.Time `json:"lastDrop"`
			LastReason    string    `json:"lastReason"`
		}
		if json.Unmarshal(b, &st) == nil && st.DroppedEvents > 0 {
			reason := reasonBytes
			if strings.Contains(st.LastReason, "age") {
				reason = reasonAge
			}
			for k, v := range map[string]string{"dropped_events": strconv.FormatInt(st.DroppedEvents, 10), "last_drop": st.LastDrop.UTC().Format(time.RFC3339Nano), "last_drop_reason": reason} {
				if _, err := s.wdb.Exec(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, k, v); err != nil {
					return err
				}
			}
		}
		os.Rename(filepath.Join(s.cfg.DataDir, legacyRetention), filepath.Join(s.cfg.DataDir, legacyRetention+".imported"))
	}
	target := filepath.Join(s.cfg.DataDir, legacyImportedDir)
	if _, err := os.Stat(target); err == nil {
		target += "." + strconv.FormatInt(time.Now().Unix(), 10)
	}
	if err := os.Rename(dir, target); err != nil {
		return fmt.Errorf("imported the earlier version's events but could not rename %s: %w", dir, err)
	}
	s.logger.Info("local store: imported the event log of an earlier version", "events", imported, "unreadable", unreadable,
		"from", dir, "kept_as", target, "took", time.Since(start).Round(time.Millisecond).String())
	return nil
}

var legacyCRC = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }) // on first use: only an old log is read with it

// decodeLegacyRecord reads one framed record: [0:4] payload length, [4:8] CRC-32C of
// bytes 0:4, 8:16 and the payload, [8:16] record time in Unix nanoseconds.
func decodeLegacyRecord(b []byte) (payload []byte, at time.Time, size int, ok bool) {
	if len(b) < legacyHeaderSize {
		return nil, at, 0, false
	}
	n := binary.LittleEndian.Uint32(b[0:4])
	size = legacyHeaderSize + int(n)
	if n > 64<<20 || len(b) < size {
		return nil, at, 0, false
	}
	payload = b[legacyHeaderSize:size]
	c := crc32.Update(0, legacyCRC(), b[0:4])
	c = crc32.Update(c, legacyCRC(), b[8:16])
	if crc32.Update(c, legacyCRC(), payload) != binary.LittleEndian.Uint32(b[4:8]) {
		return nil, at, 0, false
	}
	return payload, time.Unix(0, int64(binary.LittleEndian.Uint64(b[8:16]))), size, true
}

// decodeLegacyEvent reads an earlier version's stored event: a format byte (1), the
// length of a summary (uvarint), the summary, then the whole event as JSON.
func decodeLegacyEvent(b []byte) (*event.Event, error) {
	if len(b) < 2 || b[0] != 1 {
		return nil, errors.New("unknown stored event format")
	}
	n, k := binary.Uvarint(b[1:])
	if k <= 0 || n > uint64(len(b)-1-k) {
		return nil, errors.New("bad summary length")
	}
	var e event.Event
	if err := json.Unmarshal(b[1+k+int(n):], &e); err != nil {
		return nil, err
	}
	if e.ID == "" {
		return nil, errors.New("stored event has no id")
	}
	return &e, nil
}
