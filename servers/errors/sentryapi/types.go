package sentryapi

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
	"github.com/mcpkit/reference/servers/errors/event"
)

// Wire shapes of the Sentry REST API responses this backend reads (only the fields it
// uses), and their mapping onto the shared result and event types.

type apiOrg struct {
	ID   event.FlexString `json:"id"`
	Slug string           `json:"slug"`
	Name string           `json:"name"`
}

type apiProject struct {
	ID           event.FlexString `json:"id"`
	Slug         string           `json:"slug"`
	Name         string           `json:"name"`
	Platform     event.FlexString `json:"platform"`
	Organization *apiOrg          `json:"organization"`
}

type apiIssue struct {
	ID        event.FlexString `json:"id"`
	ShortID   string           `json:"shortId"`
	Title     string           `json:"title"`
	Culprit   string           `json:"culprit"`
	Permalink string           `json:"permalink"`
	Level     string           `json:"level"`
	Status    string           `json:"status"`
	Platform  event.FlexString `json:"platform"`
	Metadata  struct {
		Type  event.FlexString `json:"type"`
		Value event.FlexString `json:"value"`
	} `json:"metadata"`
	Count     flexInt64      `json:"count"`
	UserCount flexInt64      `json:"userCount"`
	FirstSeen event.FlexTime `json:"firstSeen"`
	LastSeen  event.FlexTime `json:"lastSeen"`
	Project   struct {
		ID   event.FlexString `json:"id"`
		Slug string           `json:"slug"`
	} `json:"project"`
	Stats apiStats `json:"stats"`
}

// apiStats is an issue's "stats": per period ("24h" hourly, "30d" daily), pairs of
// a bucket's Unix time and its count. They only feed the timeline: a shape this
// backend does not know leaves them out instead of failing the issue.
type apiStats map[string][]backend.Point

func (s *apiStats) UnmarshalJSON(b []byte) error {
	var raw map[string][][]float64
	if json.Unmarshal(b, &raw) != nil {
		*s = nil
		return nil
	}
	out := apiStats{}
	for period, pairs := range raw {
		for _, p := range pairs {
			if len(p) == 2 && p[1] >= 0 && !math.IsNaN(p[0]) {
				out[period] = append(out[period], backend.Point{At: time.Unix(int64(p[0]), 0).UTC(), N: int64(p[1])})
			}
		}
	}
	*s = out
	return nil
}

type apiTagValue struct {
	Value     event.FlexString `json:"value"`
	Name      event.FlexString `json:"name"`
	Count     flexInt64        `json:"count"`
	FirstSeen event.FlexTime   `json:"firstSeen"`
	LastSeen  event.FlexTime   `json:"lastSeen"`
}

type apiTag struct {
	Key          string        `json:"key"`
	TotalValues  flexInt64     `json:"totalValues"`
	UniqueValues flexInt64     `json:"uniqueValues"`
	TopValues    []apiTagValue `json:"topValues"`
}

type apiEventTag struct {
	Key   string           `json:"key"`
	Value event.FlexString `json:"value"`
}

type apiUser struct {
	ID        event.FlexString `json:"id"`
	Username  event.FlexString `json:"username"`
	Email     event.FlexString `json:"email"`
	IPAddress event.FlexString `json:"ip_address"`
}

// apiCodeMapping is one of an organization's code mappings
// (GET /api/0/organizations/{org}/code-mappings/?project={id}): a stack root mapped
// to a path in a repository.
type apiCodeMapping struct {
	ProjectID  event.FlexString `json:"projectId"`
	RepoName   string           `json:"repoName"`
	StackRoot  string           `json:"stackRoot"`
	SourceRoot string           `json:"sourceRoot"`
}

type apiEvent struct {
	ID          event.FlexString `json:"id"`
	EventID     event.FlexString `json:"eventID"`
	GroupID     event.FlexString `json:"groupID"`
	ProjectID   event.FlexString `json:"projectID"`
	Title       string           `json:"title"`
	Message     event.FlexString `json:"message"`
	Culprit     event.FlexString `json:"culprit"`
	Platform    event.FlexString `json:"platform"`
	DateCreated event.FlexTime   `json:"dateCreated"`
	Tags        []apiEventTag    `json:"tags"`
	Entries     []apiEntry       `json:"entries"`
	Contexts    map[string]any   `json:"contexts"`
	Context     map[string]any   `json:"context"`
	User        *apiUser         `json:"user"`
	Release     *json.RawMessage `json:"release"`
}

type apiEntry struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

type apiFrame struct {
	Function event.FlexString `json:"function"`
	Module   event.FlexString `json:"module"`
	Filename event.FlexString `json:"filename"`
	AbsPath  event.FlexString `json:"absPath"`
	LineNo   event.FlexInt    `json:"lineNo"`
	ColNo    event.FlexInt    `json:"colNo"`
	InApp    event.FlexBool   `json:"inApp"`
	Context  [][]any          `json:"context"`
	Vars     map[string]any   `json:"vars"`
}

type apiStacktrace struct {
	Frames []apiFrame `json:"frames"`
}

type apiException struct {
	Type      event.FlexString `json:"type"`
	Value     event.FlexString `json:"value"`
	Module    event.FlexString `json:"module"`
	Mechanism *struct {
		Type    event.FlexString `json:"type"`
		Handled event.FlexBool   `json:"handled"`
	} `json:"mechanism"`
	Stacktrace *apiStacktrace `json:"stacktrace"`
}

// flexInt64 is a count that Sentry sends as a number or a numeric string ("count": "150").
type flexInt64 int64

func (n *flexInt64) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(bytes.TrimSpace(b)), `"`)
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && math.Abs(f) < 1<<62 {
		*n = flexInt64(f)
	} else {
		*n = 0
	}
	return nil
}

func (a *apiIssue) view(v *backend.Viewer) backend.Issue {
	return backend.Issue{
		ID:        v.Text(string(a.ID), backend.CapName),
		ShortID:   v.Text(a.ShortID, backend.CapName),
		Title:     v.SecretText(a.Title, backend.CapTitle),
		Culprit:   v.Text(a.Culprit, backend.CapName),
		Type:      v.Text(string(a.Metadata.Type), backend.CapName),
		Value:     v.SecretText(string(a.Metadata.Value), backend.CapTitle),
		Level:     v.Text(a.Level, backend.CapName),
		Status:    v.Text(a.Status, backend.CapName),
		Project:   v.Text(a.Project.Slug, backend.CapName),
		Platform:  v.Text(string(a.Platform), backend.CapName),
		Count:     int64(a.Count),
		UserCount: int64(a.UserCount),
		FirstSeen: backend.FormatTime(a.FirstSeen.T),
		LastSeen:  backend.FormatTime(a.LastSeen.T),
		Permalink: v.Text(a.Permalink, backend.CapName*2),
	}
}

// view renders one value of tag key; key is the tag asked for (not the value's own
// "key" field), so the redaction rule follows what the caller named.
func (t apiTagValue) view(v *backend.Viewer, key string) backend.TagValue {
	val := string(t.Value)
	if val == "" {
		val = string(t.Name)
	}
	return v.CountedTagValue(key, val, int64(t.Count), t.FirstSeen.T, t.LastSeen.T)
}

func (e *apiEvent) eventID() string { return event.FirstNonEmpty(string(e.EventID), string(e.ID)) }

// toEventData maps an API event (with its entries) onto the shared event shape.
func (e *apiEvent) toEventData() *event.Event {
	out := &event.Event{
		ID:        e.eventID(),
		IssueID:   string(e.GroupID),
		Project:   string(e.ProjectID),
		Timestamp: e.DateCreated.T,
		Title:     e.Title,
		Message:   string(e.Message),
		Culprit:   string(e.Culprit),
		Platform:  string(e.Platform),
		Extra:     e.Context,
	}
	for _, t := range e.Tags {
		out.Tags = append(out.Tags, event.Pair{Key: t.Key, Value: string(t.Value)})
	}
	out.Level = out.Tag("level")
	out.Environment = out.Tag("environment")
	out.Transaction = out.Tag("transaction")
	out.Release = out.Tag("release")
	if e.Release != nil {
		var r struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(*e.Release, &r) == nil && r.Version != "" {
			out.Release = r.Version
		}
	}
	if u := e.User; u != nil {
		out.User = &event.User{ID: string(u.ID), Username: string(u.Username), Email: string(u.Email), IP: string(u.IPAddress)}
	}
	if len(e.Contexts) > 0 {
		out.Contexts = map[string]event.Context{}
		for name, c := range e.Contexts {
			if m, ok := c.(map[string]any); ok {
				cd := event.Context{}
				for k, v := range m {
					switch v.(type) {
					case string, float64, bool:
						cd[k] = v
					}
				}
				out.Contexts[name] = cd
			}
		}
	}
	for _, entry := range e.Entries {
		switch entry.Type {
		case "exception":
			var d struct {
				Values []apiException `json:"values"`
			}
			if json.Unmarshal(entry.Data, &d) == nil {
				for _, x := range d.Values {
					ex := event.Exception{Type: string(x.Type), Value: string(x.Value), Module: string(x.Module)}
					if x.Mechanism != nil {
						ex.Mechanism, ex.Handled = string(x.Mechanism.Type), x.Mechanism.Handled.V
					}
					if x.Stacktrace != nil {
						ex.Frames = apiFrames(x.Stacktrace.Frames)
					}
					out.Exceptions = append(out.Exceptions, ex)
				}
			}
		case "stacktrace":
			var d apiStacktrace
			if json.Unmarshal(entry.Data, &d) == nil {
				out.Stacktrace = apiFrames(d.Frames)
			}
		case "threads":
			var d struct {
				Values []struct {
					Crashed    event.FlexBool `json:"crashed"`
					Current    event.FlexBool `json:"current"`
					Stacktrace *apiStacktrace `json:"stacktrace"`
				} `json:"values"`
			}
			if json.Unmarshal(entry.Data, &d) == nil && len(out.Stacktrace) == 0 {
				for _, t := range d.Values {
					if t.Stacktrace != nil && len(t.Stacktrace.Frames) > 0 && (len(out.Stacktrace) == 0 || (t.Crashed.V != nil && *t.Crashed.V)) {
						out.Stacktrace = apiFrames(t.Stacktrace.Frames)
					}
				}
			}
		case "breadcrumbs":
			var d struct {
				Values []event.SDKBreadcrumb `json:"values"`
			}
			if json.Unmarshal(entry.Data, &d) == nil {
				for _, b := range d.Values {
					out.Breadcrumbs = append(out.Breadcrumbs, event.Breadcrumb{
						Timestamp: b.Timestamp.T, Type: string(b.Type), Category: string(b.Category),
						Level: string(b.Level), Message: string(b.Message), Data: b.Data,
					})
				}
			}
		case "request":
			var d struct {
				URL     event.FlexString `json:"url"`
				Method  event.FlexString `json:"method"`
				Query   json.RawMessage  `json:"query"`
				Headers event.FlexPairs  `json:"headers"`
				Data    any              `json:"data"`
			}
			if json.Unmarshal(entry.Data, &d) == nil {
				r := &event.Request{URL: string(d.URL), Method: string(d.Method), Headers: d.Headers, Data: d.Data}
				var pairs event.FlexPairs
				if json.Unmarshal(d.Query, &pairs) == nil {
					r.Query = pairs
				} else {
					var s string
					if json.Unmarshal(d.Query, &s) == nil && s != "" {
						r.Query = event.RedactQueryString(s)
					}
				}
				out.Request = r
			}
		case "message":
			var d struct {
				Formatted event.FlexString `json:"formatted"`
				Message   event.FlexString `json:"message"`
			}
			if json.Unmarshal(entry.Data, &d) == nil {
				out.Message = event.FirstNonEmpty(string(d.Formatted), string(d.Message), out.Message)
			}
		}
	}
	return out
}

func apiFrames(in []apiFrame) []event.Frame {
	out := make([]event.Frame, 0, len(in))
	for _, f := range in {
		fd := event.Frame{
			Function: string(f.Function), Module: string(f.Module), Filename: string(f.Filename), AbsPath: string(f.AbsPath),
			Line: int(f.LineNo), Column: int(f.ColNo), InApp: f.InApp.V != nil && *f.InApp.V, Vars: f.Vars,
		}
		for _, c := range f.Context {
			if len(c) != 2 {
				continue
			}
			n, _ := c[0].(float64)
			code, _ := c[1].(string)
			fd.Context = append(fd.Context, event.ContextLine{Line: int(n), Code: code})
		}
		out = append(out, fd)
	}
	return out
}

// apiEventSummary is one row of the issue events list.
func (e *apiEvent) summary(v *backend.Viewer) backend.EventSummary {
	d := e.toEventData()
	return backend.EventSummary{
		ID:          v.Text(d.ID, backend.CapName),
		Timestamp:   backend.FormatTime(d.Timestamp),
		Title:       v.SecretText(d.Title, backend.CapTitle),
		Message:     v.SecretText(event.FirstLine(d.Message), backend.CapTitle),
		Level:       v.Text(d.Level, backend.CapName),
		Environment: v.TagValue("environment", d.Environment),
		Release:     v.TagValue("release", d.Release),
		User:        v.TagValue("user", event.FirstNonEmpty(d.Tag("user"), d.User.Label())),
	}
}
