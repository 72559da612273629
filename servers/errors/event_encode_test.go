package errorserver

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/mcpkit/reference/servers/errors/ingest"
	"github.com/mcpkit/reference/servers/errors/internal/errorstest"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/google/go-cmp/cmp"
	json "github.com/segmentio/encoding/json"
)

// checkMarshalEvent fails when marshalEvent's bytes (or error) differ from
// json.Marshal's, which wrote the stored bodies so far.
func checkMarshalEvent(t testing.TB, e *event.Event) {
	t.Helper()
	want, wantErr := json.Marshal(e)
	got, err := event.Marshal(e)
	if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
		t.Fatalf("marshalEvent:\n got %s (%v)\nwant %s (%v)", got, err, want, wantErr)
	}
}

// oddStrings need escaping of every kind json.Marshal does.
var oddStrings = []string{"", "plain", `quote " backslash \ slash /`, "<b>&amp;</b>", "\b\f\n\r\t\x00\x01\x1f\x7f",
	"café ✓ 日本語 😀", "line\u2028para\u2029", "bad \xff\xfe utf8 \xe2\x82", "a long plain string of more than eight bytes"}

func TestMarshalEventMatchesJSONMarshal(t *testing.T) {
	yes, no := true, false
	at := time.Date(2026, 5, 1, 12, 0, 0, 123456789, time.UTC)
	local := time.Date(2026, 5, 1, 12, 0, 0, 0, time.FixedZone("X", 3600))
	numbers := []any{0.0, math.Copysign(0, -1), 1.0, -1.5, 0.1, 1e20, 1e21, 123456789012345678.0, 1e-6, 1e-7, 5e-324, math.MaxFloat64, 200.0}
	nested := map[string]any{"list": []any{1.0, "two", true, nil, map[string]any{"z": 1.0, "a": []any{}}}, "nil list": []any(nil),
		"nil map": map[string]any(nil), "empty": map[string]any{}, "int": 7, "strings": []string{"a"}, "b": false}
	cases := []struct {
		name string
		e    *event.Event
	}{
		{"empty", &event.Event{}},
		{"times", &event.Event{ID: "x", Timestamp: at, Received: local, Breadcrumbs: []event.Breadcrumb{{}, {Timestamp: at, Type: "t"}}}},
		{"all fields", &event.Event{ID: "id", IssueID: "i", Project: "p", Timestamp: at, Received: at, ClientTimestamp: at,
			Level: "error", Platform: "go", Logger: "l", Title: "T", Culprit: "c", Message: "m", MessageTemplate: "mt",
			Transaction: "tx", Release: "r", Dist: "d", Environment: "e", ServerName: "s", SDK: "sdk",
			Tags: []event.Pair{{Key: "a", Value: "b"}, {Key: "", Value: ""}}, Fingerprint: []string{"f", ""},
			Exceptions: []event.Exception{{}, {Type: "E", Value: "v", Module: "m", Mechanism: "x", Handled: &no, Frames: []event.Frame{{}, {
				Function: "f", Module: "m", Filename: "f.go", AbsPath: "/f.go", Line: 3, Column: -1, InApp: true,
				Context: []event.ContextLine{{Line: 0, Code: ""}, {Line: 3, Code: "x := 1"}}, Vars: map[string]any{"v": 1.0, "w": nested}}}}, {Handled: &yes}},
			Stacktrace:  []event.Frame{{Function: "g"}},
			Breadcrumbs: []event.Breadcrumb{{Timestamp: at, Type: "http", Category: "c", Level: "info", Message: "m", Data: nested}},
			Request:     &event.Request{Method: "GET", URL: "u", Query: []event.Pair{{Key: "q", Value: "1"}}, Headers: []event.Pair{{Key: "h", Value: "v"}}, Data: nested},
			User:        &event.User{ID: "1", Username: "u", Email: "e", IP: "ip"},
			Contexts:    map[string]event.Context{"os": {"name": "Linux", "n": 1.0, "b": true}, "empty": {}, "nil": nil},
			Extra:       map[string]any{"numbers": numbers, "nested": nested},
		}},
		{"empty request and user", &event.Event{Request: &event.Request{}, User: &event.User{}}},
		{"request data string", &event.Event{Request: &event.Request{Data: "body"}}},
		{"NaN is refused", &event.Event{Extra: map[string]any{"n": math.NaN()}}},
		{"infinity is refused", &event.Event{Contexts: map[string]event.Context{"c": {"n": math.Inf(-1)}}}},
	}
	for _, s := range oddStrings {
		cases = append(cases, struct {
			name string
			e    *event.Event
		}{"string " + s, &event.Event{ID: s, Message: s, Tags: []event.Pair{{Key: s, Value: s}}, Fingerprint: []string{s},
			Exceptions: []event.Exception{{Value: s, Frames: []event.Frame{{Function: s, Context: []event.ContextLine{{Line: 1, Code: s}}}}}},
			Request:    &event.Request{Data: s, Headers: []event.Pair{{Key: s, Value: s}}}, Extra: map[string]any{s: s, "x" + s: []any{s}},
			Contexts: map[string]event.Context{s: {s: s}}}})
	}
	for _, n := range numbers {
		cases = append(cases, struct {
			name string
			e    *event.Event
		}{"number", &event.Event{Extra: map[string]any{"n": n, "neg": -n.(float64)}}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkMarshalEvent(t, tc.e) })
	}
}

// TestMarshalEventMatchesOnSentryGo compares the bodies of sentry-go's events, as
// the store prepares them.
func TestMarshalEventMatchesOnSentryGo(t *testing.T) {
	bodies, _ := errorstest.CaptureEnvelopes(t)
	s := &LocalStore{cfg: LocalConfig{MaxAge: DefaultMaxAge}}
	for _, body := range bodies {
		env, err := ingest.ParseEnvelope(body)
		if err != nil {
			t.Fatal(err)
		}
		e, err := ingest.ParseEvent(env.Items[0].Payload, "42", time.Now(), "")
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.prepare(e, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := json.Marshal(e); !bytes.Equal(p.body, want) {
			t.Fatalf("prepared body\n got %s\nwant %s", p.body, want)
		}
		obj := map[string]string{}
		for _, t := range p.tags {
			obj[t.Key] = t.Value
		}
		if want, _ := json.Marshal(obj); !bytes.Equal(p.tagsJSON, want) {
			t.Fatalf("prepared tags\n got %s\nwant %s", p.tagsJSON, want)
		}
	}
}

// FuzzMarshalEvent compares marshalEvent with json.Marshal on the event any payload
// decodes to, and on odd strings in every string field.
func FuzzMarshalEvent(f *testing.F) {
	for _, tmpl := range errorstest.DecodeFieldTemplates {
		f.Add([]byte(tmpl), "s")
	}
	for _, s := range oddStrings {
		f.Add([]byte(`{"message": "x"}`), s)
	}
	f.Fuzz(func(t *testing.T, payload []byte, s string) {
		if e, err := ingest.ParseEvent(payload, "1", time.Unix(1, 0), ""); err == nil {
			event.DeriveIssueFields(e)
			checkMarshalEvent(t, e)
		}
		e := &event.Event{ID: s, Title: s, Tags: []event.Pair{{Key: s, Value: s}}, Exceptions: []event.Exception{{Value: s}},
			Breadcrumbs: []event.Breadcrumb{{Message: s, Data: map[string]any{s: []any{s, map[string]any{s: s}}}}},
			Request:     &event.Request{Data: s}, Contexts: map[string]event.Context{s: {s: s}}}
		checkMarshalEvent(t, e)
	})
}

func TestMarshalTagsMatchesJSONMarshal(t *testing.T) {
	for _, tags := range [][]event.Pair{nil, {{Key: "b", Value: "1"}, {Key: "a", Value: "2"}, {Key: "", Value: ""}}, {{Key: "z", Value: "<&>"}, {Key: "é", Value: "\xff"}, {Key: "A", Value: "\u2028"}}} {
		obj := map[string]string{}
		for _, p := range tags {
			obj[p.Key] = p.Value
		}
		want, _ := json.Marshal(obj)
		if got := event.MarshalTags(tags); !bytes.Equal(got, want) {
			t.Errorf("marshalTags(%q) = %s, want %s", tags, got, want)
		}
	}
}

// TestPrepareKeepsFirstOfRepeatedTags: the counted tags are the first of each key, in
// the event's order, redacted; with few tags and with many.
func TestPrepareKeepsFirstOfRepeatedTags(t *testing.T) {
	s := &LocalStore{cfg: LocalConfig{MaxAge: DefaultMaxAge}}
	for _, n := range []int{3, 31, 32, 33, 80} {
		var tags, want []event.Pair
		for i := range n {
			k := fmt.Sprintf("k%d", i%(n/2+1))
			if i%7 == 3 {
				k = "token"
			}
			tags = append(tags, event.Pair{Key: k, Value: fmt.Sprint(i)})
			if !slices.ContainsFunc(want, func(p event.Pair) bool { return p.Key == k }) {
				want = append(want, event.Pair{Key: k, Value: event.RedactValue(k, fmt.Sprint(i))})
			}
		}
		e := &event.Event{ID: "x", IssueID: "i", Project: "1", Tags: tags}
		p, err := s.prepare(e, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, p.tags, cmp.AllowUnexported(event.Pair{})); diff != "" {
			t.Errorf("%d tags (-want +got):\n%s", n, diff)
		}
	}
}

// TestDetachTagsCopiesIntoOneString: after detachTags the tags' text is one string of
// its own, key after value after key, whatever it pointed into before.
func TestDetachTagsCopiesIntoOneString(t *testing.T) {
	payload := "level error environment production"
	tags := []event.Pair{{Key: payload[:5], Value: payload[6:11]}, {Key: payload[12:23], Value: payload[24:]}, {Key: "", Value: ""}}
	want := slices.Clone(tags)
	detachTags(tags)
	if diff := cmp.Diff(want, tags); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	next := unsafe.StringData(tags[0].Key)
	if next == unsafe.StringData(payload) {
		t.Fatal("the tags still point into the payload")
	}
	for _, p := range tags[:2] {
		for _, s := range []string{p.Key, p.Value} {
			if unsafe.StringData(s) != next {
				t.Fatalf("%q is not where the previous text ended", s)
			}
			next = (*byte)(unsafe.Add(unsafe.Pointer(next), len(s)))
		}
	}
}
