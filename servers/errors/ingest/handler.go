// Package ingest is the HTTP endpoint Sentry SDKs send to: envelopes, the older store
// endpoint and Spotlight's /stream; DSN key checks, body limits and decompression;
// and the decoding of SDK payloads into event.Event (lenient about shapes, strict
// about sizes, secrets redacted before anything is kept). It hands the events to a
// Sink and knows nothing of SQLite.
//
// It may import event, backend (the shape of an event id, and the view's rendering of
// a request body, which is what the store keeps of it) and internal/lazyregexp,
// nothing else of this module: not the store (the Sink is an interface), the Sentry
// client, the page or the tools (TestPackagesImportOneWay).
package ingest

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/event"
	"github.com/mcpkit/reference/servers/errors/internal/lazyregexp"
)

// Sink is what the ingest endpoint hands the events it decodes to, and asks what it
// accepts: the local store (store.Store) in the server, a fake in a test. The endpoint
// knows nothing of how events are kept.
type Sink interface {
	// Ingest keeps events durably and returns once they are committed; an error
	// answers the sender 503 with Retry-After.
	Ingest(ctx context.Context, events []*event.Event) error
	// AcceptsKey reports whether key is a DSN public key events are accepted with.
	AcceptsKey(key string) bool
	// MaxBodyBytes bounds a request body, compressed and decompressed alike.
	MaxBodyBytes() int64
	// Logger receives what the endpoint reports (refusals, skipped items).
	Logger() *slog.Logger
	// Now is the clock events are received by.
	Now() time.Time
}

// TelemetrySink is a Sink that keeps spans and logs too: the endpoint hands it the
// events, spans and logs of one request in one call, and acknowledges the request
// only once it returns (all committed). A Sink that is not one gets the events alone,
// and the spans and logs are skipped, as other item types are.
type TelemetrySink interface {
	Sink
	IngestTelemetry(ctx context.Context, events []*event.Event, t *event.Telemetry) error
}

// handler serves the endpoints over one Sink.
type handler struct {
	Sink
	refusals *refusalLog // warn lines for refused envelopes, rate-limited
}

// Handler returns the HTTP handler Sentry SDKs send events to when their DSN
// points at this server (http://KEY@HOST:PORT/PROJECT):
//
//	POST /api/<project>/envelope/   the envelope endpoint every current SDK uses
//	POST /api/<project>/store/      the older single-event endpoint
//	POST /stream                    Spotlight's sidecar endpoint: what SDKs send with
//	                                their spotlight option on (no DSN key needed; the
//	                                project is the one in the envelope's dsn, else
//	                                "spotlight")
//
// Bodies may be gzip, deflate or brotli (br) encoded. The DSN public key is read from the
// X-Sentry-Auth header, the sentry_key query parameter or the envelope header's dsn.
// The answer is 200 {"id": "<event id>"} only after the event is on disk; anything
// the store cannot accept gets a 4xx with {"detail": "..."} saying why, and leaves the
// store untouched. The Content-Type is not looked at (SDKs send
// application/x-sentry-envelope, some nothing at all). Envelope items other than events (transactions, sessions,
// attachments, client reports, and types this server does not know) are skipped.
func Handler(sink Sink) http.Handler {
	s := handler{Sink: sink, refusals: &refusalLog{}}
	mux := http.NewServeMux()
	envelope := func(w http.ResponseWriter, r *http.Request) { s.serveIngest(w, r, endpointEnvelope) }
	store := func(w http.ResponseWriter, r *http.Request) { s.serveIngest(w, r, endpointStore) }
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) { s.serveIngest(w, r, endpointSpotlight) })
	mux.HandleFunc("/api/{project}/envelope/{$}", envelope)
	mux.HandleFunc("/api/{project}/envelope", envelope)
	mux.HandleFunc("/api/{project}/store/{$}", store)
	mux.HandleFunc("/api/{project}/store", store)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		ingestError(w, http.StatusNotFound, "no such endpoint: SDKs send to /api/<project>/envelope/ when their DSN is http://<key>@<this host>/<project>")
	})
	return mux
}

var projectPattern = lazyregexp.New(`^[A-Za-z0-9_-]{1,64}$`)

// knownItemTypes are envelope item types the store recognises and skips; other types
// are skipped too, but logged as "unknown" rather than by their (untrusted) name.
var knownItemTypes = map[string]bool{
	"transaction": true, "session": true, "sessions": true, "attachment": true, "client_report": true,
	"check_in": true, "log": true, "otel_log": true, "trace_metric": true, "profile": true, "profile_chunk": true,
	"replay_event": true, "replay_recording": true, "replay_video": true, "user_report": true, "feedback": true,
	"span": true, "otel_span": true, "statsd": true, "metric_buckets": true, "security": true, "raw_security": true,
	"nel": true, "unreal_report": true, "form_data": true,
}

func ingestError(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"detail": detail})
}

// The ingest endpoints.
const (
	endpointEnvelope = iota
	endpointStore
	endpointSpotlight
)

// SpotlightProject is the project of events sent to /stream without a DSN.
const SpotlightProject = "spotlight"

func (s handler) serveIngest(w http.ResponseWriter, r *http.Request, endpoint int) {
	isEnvelope := endpoint != endpointStore
	// Browser SDKs post cross-origin; the key, not the origin, authorises a sender.
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if r.Method == http.MethodOptions {
		w.Header().Set("Access-Control-Allow-Methods", "POST")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Content-Encoding, X-Sentry-Auth, sentry-trace, baggage")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		s.reject(w, r.PathValue("project"), http.StatusMethodNotAllowed, "method "+r.Method+" not allowed: SDKs POST events here")
		return
	}
	project := r.PathValue("project")
	if endpoint == endpointSpotlight {
		project = SpotlightProject
	}
	if !projectPattern.MatchString(project) {
		s.reject(w, project, http.StatusBadRequest, "the project in the URL is not a project id: use the number at the end of the DSN")
		return
	}
	key, hasKey := requestKey(r)
	if hasKey && !s.AcceptsKey(key) && endpoint != endpointSpotlight {
		s.reject(w, project, http.StatusForbidden, "the DSN public key is not one this store accepts: use the DSN the server was configured with")
		return
	}
	body, status, msg := s.readBody(r)
	if status != 0 {
		s.reject(w, project, status, msg)
		return
	}
	var events []*event.Event
	var tel event.Telemetry
	var id string
	if isEnvelope {
		env, err := ParseEnvelope(body)
		if err != nil {
			s.reject(w, project, http.StatusBadRequest, "bad envelope: "+err.Error())
			return
		}
		if endpoint == endpointSpotlight {
			// Spotlight takes what the SDK mirrors to it whatever its DSN (often the
			// real Sentry's): the DSN only names the project.
			if p, ok := dsnProject(string(env.Header.DSN)); ok {
				project = p
			}
			hasKey = true
		}
		if !hasKey {
			if key, hasKey = dsnKey(string(env.Header.DSN)); hasKey && !s.AcceptsKey(key) {
				s.reject(w, project, http.StatusForbidden, "the DSN public key is not one this store accepts: use the DSN the server was configured with")
				return
			}
		}
		if !hasKey {
			s.reject(w, project, http.StatusUnauthorized, missingKeyDetail)
			return
		}
		id = string(env.Header.EventID)
		var skipped map[string]int // most envelopes hold only the event
		for n, item := range env.Items {
			if keep, err := s.telemetryItem(&tel, item, project); err != nil {
				s.reject(w, project, http.StatusBadRequest, fmt.Sprintf("item %d (%s): %v", n+1, item.Type, err))
				return
			} else if keep {
				continue
			}
			if item.Type != "event" {
				if skipped == nil {
					skipped = map[string]int{}
				}
				if knownItemTypes[item.Type] {
					skipped[item.Type]++
				} else {
					skipped["unknown"]++
				}
				continue
			}
			e, err := ParseEvent(item.Payload, project, s.Now(), id)
			if err != nil {
				s.reject(w, project, http.StatusBadRequest, fmt.Sprintf("item %d (event): %v", n+1, err))
				return
			}
			events = append(events, e)
		}
		if len(skipped) > 0 {
			s.Logger().Debug("ingest: skipped envelope items", "project", project, "types", skipped)
		}
	} else {
		if !hasKey {
			s.reject(w, project, http.StatusUnauthorized, missingKeyDetail)
			return
		}
		e, err := ParseEvent(body, project, s.Now(), "")
		if err != nil {
			s.reject(w, project, http.StatusBadRequest, err.Error())
			return
		}
		events = append(events, e)
	}
	if err := s.ingest(r.Context(), events, &tel); err != nil {
		s.Logger().Error("ingest: could not store events", "project", project, "events", len(events), "error", err.Error())
		w.Header().Set("Retry-After", "60")
		ingestError(w, http.StatusServiceUnavailable, "the event could not be stored durably; retry later")
		return
	}
	if len(events) > 0 {
		id = events[0].ID
	}
	s.Logger().Debug("ingest: accepted", "project", project, "events", len(events))
	w.Header().Set("Content-Type", "application/json")
	if id == "" {
		io.WriteString(w, "{}")
		return
	}
	json.NewEncoder(w).Encode(map[string]string{"id": id})
}

const missingKeyDetail = "no DSN public key: send X-Sentry-Auth: Sentry sentry_key=<key> (SDKs do this), the sentry_key query parameter, or the dsn in the envelope header"

// reject answers an envelope the collector refuses and logs why at warn (see
// refusalLog): "why don't my events arrive" is then answered by the log.
func (s handler) reject(w http.ResponseWriter, project string, status int, detail string) {
	s.refusals.warn(s.Logger(), s.Now(), project, status, detail)
	ingestError(w, status, detail)
}

// requestKey reads the DSN public key from X-Sentry-Auth (or Authorization: Sentry ...)
// or the sentry_key query parameter.
func requestKey(r *http.Request) (string, bool) {
	for _, h := range []string{r.Header.Get("X-Sentry-Auth"), r.Header.Get("Authorization")} {
		rest, ok := cutPrefixFold(strings.TrimSpace(h), "sentry ")
		if !ok {
			continue
		}
		for _, part := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
			if k == "sentry_key" && v != "" {
				return v, true
			}
		}
	}
	if k := r.URL.Query().Get("sentry_key"); k != "" {
		return k, true
	}
	return "", false
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// dsnKey extracts the public key from a DSN (http://KEY@host/project).
func dsnKey(dsn string) (string, bool) {
	if dsn == "" {
		return "", false
	}
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil || u.User.Username() == "" {
		return "", false
	}
	return u.User.Username(), true
}

// dsnProject extracts the project from a DSN (the last path segment).
func dsnProject(dsn string) (string, bool) {
	u, err := url.Parse(dsn)
	if err != nil || dsn == "" {
		return "", false
	}
	p := u.Path[strings.LastIndex(u.Path, "/")+1:]
	return p, projectPattern.MatchString(p)
}

// readBody reads and decodes the request body within the size limit. It returns a
// non-zero status and a message when the body cannot be accepted.
func (s handler) readBody(r *http.Request) ([]byte, int, string) {
	limit := s.MaxBodyBytes()
	tooLarge := fmt.Sprintf("request body is over the %d byte limit: send smaller events (SDKs cap their own)", limit)
	if r.ContentLength > limit {
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, http.StatusBadRequest, "could not read the request body: " + err.Error()
	}
	if int64(len(raw)) > limit {
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	}
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	var dec io.Reader
	switch enc {
	case "", "identity":
		return raw, 0, ""
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, http.StatusBadRequest, "body says Content-Encoding: gzip but is not gzip data: " + err.Error()
		}
		dec = zr
	case "deflate":
		// HTTP's deflate is zlib-wrapped; some clients send raw deflate. Accept both.
		if zr, err := zlib.NewReader(bytes.NewReader(raw)); err == nil {
			dec = zr
		} else {
			dec = flate.NewReader(bytes.NewReader(raw))
		}
	case "br":
		dec = brotliReader(raw)
	default:
		return nil, http.StatusUnsupportedMediaType, "Content-Encoding " + strconv.Quote(enc) + " is not supported: send gzip, deflate, br or no encoding"
	}
	body, err := io.ReadAll(io.LimitReader(dec, limit+1))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, http.StatusBadRequest, "compressed body is truncated: " + enc + " data ended early"
		}
		return nil, http.StatusBadRequest, "compressed body is corrupt: " + err.Error()
	}
	if int64(len(body)) > limit {
		return nil, http.StatusRequestEntityTooLarge, fmt.Sprintf("decompressed body is over the %d byte limit", limit)
	}
	return body, 0, ""
}
