// Package event is the bottom of the errors server: the one normalised shape of an
// event (Event) and the pure functions over it that every backend shares: grouping
// into issues (fingerprints, titles, culprits, short ids), redaction of secret-looking
// values, the bounds on tags, code mappings from stack roots to source roots, and the
// compact JSON encoding the store keeps.
//
// It does no I/O beyond the file checks of a code mapping: no SQL, no HTTP, no MCP. It
// must not import any other package of this module except internal/lazyregexp
// (TestPackagesImportOneWay holds that): the ingest endpoint, the store, the Sentry
// client, the page and the tools all import it, never the other way.
package event

import (
	"encoding/json"
	"fmt"
	"time"
)

// Event is the one internal shape of an event. The Sentry backend maps API
// responses into it, the local store normalises SDK payloads into it (and stores it as
// JSON, so its field names are a storage format: add fields, never rename), and the view
// turns it into the Event a tool returns. Nothing in it has been sanitised for display.
type Event struct {
	ID        string    `json:"id"`
	IssueID   string    `json:"issue,omitempty"`
	Project   string    `json:"project,omitempty"`
	Timestamp time.Time `json:"timestamp,omitzero"`
	// Received is when the local store received the event. ClientTimestamp is the
	// SDK's own timestamp when the store filed the event at Received instead (it was
	// in the future, or older than the age limit).
	Received        time.Time          `json:"received,omitzero"`
	ClientTimestamp time.Time          `json:"clientTimestamp,omitzero"`
	Level           string             `json:"level,omitempty"`
	Platform        string             `json:"platform,omitempty"`
	Logger          string             `json:"logger,omitempty"`
	Title           string             `json:"title,omitempty"`
	Culprit         string             `json:"culprit,omitempty"`
	Message         string             `json:"message,omitempty"`
	MessageTemplate string             `json:"messageTemplate,omitempty"`
	Transaction     string             `json:"transaction,omitempty"`
	Release         string             `json:"release,omitempty"`
	Dist            string             `json:"dist,omitempty"`
	Environment     string             `json:"environment,omitempty"`
	ServerName      string             `json:"serverName,omitempty"`
	Tags            []Pair             `json:"tags,omitempty"`
	Fingerprint     []string           `json:"fingerprint,omitempty"`
	Exceptions      []Exception        `json:"exceptions,omitempty"` // protocol order: innermost cause first, outermost last
	Stacktrace      []Frame            `json:"stacktrace,omitempty"` // a thread's stack on an event without exception
	Breadcrumbs     []Breadcrumb       `json:"breadcrumbs,omitempty"`
	Request         *Request           `json:"request,omitempty"`
	User            *User              `json:"user,omitempty"`
	Contexts        map[string]Context `json:"contexts,omitempty"`
	Extra           map[string]any     `json:"extra,omitempty"`
	SDK             string             `json:"sdk,omitempty"`
}

// Context is one context (os, runtime, device, trace...): flat scalar values.
type Context map[string]any

// Pair is a key/value pair; JSON ["key","value"] like Sentry's own pair lists.
type Pair struct {
	Key   string
	Value string
}

func (p Pair) MarshalJSON() ([]byte, error) { return json.Marshal([2]string{p.Key, p.Value}) }

func (p *Pair) UnmarshalJSON(b []byte) error {
	var a [2]string
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("key/value pair: %w", err)
	}
	p.Key, p.Value = a[0], a[1]
	return nil
}

type Exception struct {
	Type      string  `json:"type,omitempty"`
	Value     string  `json:"value,omitempty"`
	Module    string  `json:"module,omitempty"`
	Mechanism string  `json:"mechanism,omitempty"`
	Handled   *bool   `json:"handled,omitempty"`
	Frames    []Frame `json:"frames,omitempty"` // protocol order: outermost call first, crash site last
}

type Frame struct {
	Function string         `json:"function,omitempty"`
	Module   string         `json:"module,omitempty"`
	Filename string         `json:"filename,omitempty"`
	AbsPath  string         `json:"absPath,omitempty"`
	Line     int            `json:"line,omitempty"`
	Column   int            `json:"column,omitempty"`
	InApp    bool           `json:"inApp,omitempty"`
	Context  []ContextLine  `json:"context,omitempty"`
	Vars     map[string]any `json:"vars,omitempty"`
}

type ContextLine struct {
	Line int    `json:"l"`
	Code string `json:"c"`
}

type Breadcrumb struct {
	Timestamp time.Time      `json:"timestamp,omitzero"`
	Type      string         `json:"type,omitempty"`
	Category  string         `json:"category,omitempty"`
	Level     string         `json:"level,omitempty"`
	Message   string         `json:"message,omitempty"`
	Data      map[string]any `json:"data,omitempty"`
}

type Request struct {
	Method  string `json:"method,omitempty"`
	URL     string `json:"url,omitempty"`
	Query   []Pair `json:"query,omitempty"`
	Headers []Pair `json:"headers,omitempty"`
	Data    any    `json:"data,omitempty"`
}

type User struct {
	ID       string `json:"id,omitempty"`
	Username string `json:"username,omitempty"`
	Email    string `json:"email,omitempty"`
	IP       string `json:"ip,omitempty"`
}

// label is how a user is shown in a tag and a list: the first identifier there is.
func (u *User) Label() string {
	switch {
	case u == nil:
		return ""
	case u.ID != "":
		return "id:" + u.ID
	case u.Email != "":
		return "email:" + u.Email
	case u.Username != "":
		return "username:" + u.Username
	case u.IP != "":
		return "ip:" + u.IP
	}
	return ""
}

// tag returns the value of the first tag with key k.
func (e *Event) Tag(k string) string {
	for _, t := range e.Tags {
		if t.Key == k {
			return t.Value
		}
	}
	return ""
}
