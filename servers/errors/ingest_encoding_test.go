package errorserver

import (
	"bytes"
	"compress/flate"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/servers/errors/backend"
)

func brotliBytes(b []byte) []byte {
	var buf bytes.Buffer
	w := brotli.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zlibBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := newZlibWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func rawDeflateBytes(b []byte) []byte {
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
	fw.Write(b)
	fw.Close()
	return buf.Bytes()
}

// ingestEncodings are every Content-Encoding the ingest endpoint takes, with an
// encoder for each.
var ingestEncodings = []struct {
	name, header string
	encode       func([]byte) []byte
}{
	{"identity", "", func(b []byte) []byte { return b }},
	{"gzip", "gzip", gzipBytes},
	{"x-gzip", "x-gzip", gzipBytes},
	{"deflate (zlib)", "deflate", zlibBytes},
	{"deflate (raw)", "deflate", rawDeflateBytes},
	{"br", "br", brotliBytes},
}

// TestIngestEveryEncoding posts the same kinds of bodies (an envelope of an event with
// other items, and the store endpoint's bare event) in every encoding, and the
// hostile ones (a bomb, a cut stream, plain text under the header) in each compressed
// encoding: every good body is stored, every bad one refused with what was wrong.
func TestIngestEveryEncoding(t *testing.T) {
	store := openTestStore(t, t.TempDir())
	defer store.Close()
	srv, _ := startIngest(t, store)
	envURL := srv.URL + "/api/42/envelope/"
	storeURL := srv.URL + "/api/42/store/"
	want := map[string]bool{}
	n := 100
	for _, enc := range ingestEncodings {
		t.Run(enc.name, func(t *testing.T) {
			hdr := map[string]string{}
			if enc.header != "" {
				hdr["Content-Encoding"] = enc.header
			}
			n++
			env := envelopeOf(hexID(n), [2]string{"session", `{"sid":"1"}`}, [2]string{"event", testEvent(hexID(n), "E", "v", "f", nil)})
			if code, body := postEnvelope(t, envURL, enc.encode(env), hdr); code != http.StatusOK || !strings.Contains(body, hexID(n)) {
				t.Errorf("envelope: %d %s, want 200 with its id", code, body)
			}
			want[hexID(n)] = true
			n++
			if code, body := postEnvelope(t, storeURL, enc.encode([]byte(testEvent(hexID(n), "E", "v", "f", nil))), hdr); code != http.StatusOK {
				t.Errorf("store endpoint: %d %s", code, body)
			}
			want[hexID(n)] = true
			if enc.header == "" {
				return
			}
			bad := []struct {
				name       string
				body       []byte
				wantStatus int
				wantDetail string
			}{
				{"bomb", enc.encode(bytes.Repeat([]byte("a"), 21<<20)), 413, "decompressed body"},
				{"cut stream", func() []byte { b := enc.encode(env); return b[:len(b)/2] }(), 400, "compressed body"},
				{"plain text under the header", []byte("{\"event_id\":\"" + hexID(999) + "\"}\n"), 400, ""},
			}
			for _, b := range bad {
				code, body := postEnvelope(t, envURL, b.body, hdr)
				if code != b.wantStatus || !strings.Contains(body, b.wantDetail) {
					t.Errorf("%s: %d %s, want %d with %q", b.name, code, body, b.wantStatus, b.wantDetail)
				}
			}
		})
	}
	if diff := cmp.Diff(want, allEventIDs(t, store)); diff != "" {
		t.Errorf("stored events (-want +got):\n%s", diff)
	}
}

// recordedPythonKey is the DSN key of the recordings in testdata/sdk/python-2.68.0.
const recordedPythonKey = "0123456789abcdef0123456789abcdef"

// postRecorded posts the recorded envelopes of dir (testdata/sdk/<sdk>/*.envelope*)
// as their SDK sent them (.br files with Content-Encoding: br) and returns the ids
// the store acknowledged.
func postRecorded(t *testing.T, url, dir, key string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "sdk", dir, "*.envelope*"))
	if len(files) == 0 {
		t.Fatalf("no recorded envelopes in testdata/sdk/%s", dir)
	}
	var ids []string
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		hdr := map[string]string{"X-Sentry-Auth": "Sentry sentry_version=7, sentry_key=" + key, "Content-Type": "application/x-sentry-envelope"}
		if strings.HasSuffix(f, ".br") {
			hdr["Content-Encoding"] = "br"
		}
		code, resp := postEnvelope(t, url, body, hdr)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s, want 200", f, code, resp)
		}
		ids = append(ids, resp)
	}
	return ids
}

// TestIngestRecordedSentryPythonBrotli posts what sentry-sdk 2.68.0 sent (brotli,
// because the brotli module was importable): both events are stored, with their
// exception, frames and user.
func TestIngestRecordedSentryPythonBrotli(t *testing.T) {
	store := openTestStore(t, t.TempDir(), func(c *LocalConfig) { c.PublicKeys = []string{recordedPythonKey} })
	defer store.Close()
	srv, _ := startIngest(t, store)
	postRecorded(t, srv.URL+"/api/7/envelope/", "python-2.68.0", recordedPythonKey)
	ctx := context.Background()
	got := map[string]string{}
	for id := range allEventIDs(t, store) {
		is := store.issueOfEvent(t, id)
		ev, err := store.GetEvent(ctx, backend.GetEventInput{IssueID: is, EventID: id})
		if err != nil {
			t.Fatal(err)
		}
		if ev.User == nil || ev.User.Email != "chain1@example.com" {
			t.Errorf("event %s: user %+v, want chain1@example.com", id, ev.User)
		}
		for _, x := range ev.Exceptions {
			got[x.Type+": "+x.Value] = id
		}
	}
	for _, w := range []string{"AddressError: address has no zip code", "AddressError: address has no city"} {
		if got[w] == "" {
			t.Errorf("no stored event has %q; stored: %v", w, got)
		}
	}
}
