package errorserver

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/mcpkit/reference/servers/errors/event"
)

// Wire shapes of the Sentry REST API responses this backend reads (only the fields it
// uses), and their mapping onto the shared result and event types.

type apiOrg struct {
	ID   flexString `json:"id"`
	Slug string     `json:"slug"`
	Name string     `json:"name"`
}

type apiProject struct {
	ID           flexString `json:"id"`
	Slug         string     `json:"slug"`
	Name         string     `json:"name"`
	Platform     flexString `json:"platform"`
	Organization *apiOrg    `json:"organization"`
}

type apiIssue struct {
	ID        flexString `json:"id"`
	ShortID   string     `json:"shortId"`
	Title     string     `json:"title"`
	Culprit   string     `json:"culprit"`
	Permalink string     `json:"permalink"`
	Level     string     `json:"level"`
	Status    string     `json:"status"`
	Platform  flexString `json:"platform"`
	Metadata  struct {
		Type  flexString `json:"type"`
		Value flexString `json:"value"`
	} `json:"metadata"`
	Count     flexInt64 `json:"count"`
	UserCount flexInt64 `json:"userCount"`
	FirstSeen flexTime  `json:"firstSeen"`
	LastSeen  flexTime  `json:"lastSeen"`
	Project   struct {
		ID   flexString `json:"id"`
		Slug string     `json:"slug"`
	} `json:"project"`
}

type apiTagValue struct {
	Value     flexString `json:"value"`
	Name      flexString `json:"name"`
	Count     flexInt64  `json:"count"`
	FirstSeen flexTime   `json:"firstSeen"`
	LastSeen  flexTime   `json:"lastSeen"`
}

type apiTag struct {
	Key          string        `json:"key"`
	TotalValues  flexInt64     `json:"totalValues"`
	UniqueValues flexInt64     `json:"uniqueValues"`
	TopValues    []apiTagValue `json:"topValues"`
}

type apiEventTag struct {
	Key   string     `json:"key"`
	Value flexString `json:"value"`
}

type apiUser struct {
	ID        flexString `json:"id"`
	Username  flexString `json:"username"`
	Email     flexString `json:"email"`
	IPAddress flexString `json:"ip_address"`
}

// apiCodeMapping is one of an organization's code mappings
// (GET /api/0/organizations/{org}/code-mappings/?project={id}): a stack root mapped
// to a path in a repository.
type apiCodeMapping struct {
	ProjectID  flexString `json:"projectId"`
	RepoName   string     `json:"repoName"`
	StackRoot  string     `json:"stackRoot"`
	SourceRoot string     `json:"sourceRoot"`
}

type apiEvent struct {
	ID          flexString       `json:"id"`
	EventID     flexString       `json:"eventID"`
	GroupID     flexString       `json:"groupID"`
	ProjectID   flexString       `json:"projectID"`
	Title       string           `json:"title"`
	Message     flexString       `json:"message"`
	Culprit     flexString       `json:"culprit"`
	Platform    flexString       `json:"platform"`
	DateCreated flexTime         `json:"dateCreated"`
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
	Function flexString     `json:"function"`
	Module   flexString     `json:"module"`
	Filename flexString     `json:"filename"`
	AbsPath  flexString     `json:"absPath"`
	LineNo   flexInt        `json:"lineNo"`
	ColNo    flexInt        `json:"colNo"`
	InApp    flexBool       `json:"inApp"`
	Context  [][]any        `json:"context"`
	Vars     map[string]any `json:"vars"`
}

type apiStacktrace struct {
	Frames []apiFrame `json:"frames"`
}

type apiException struct {
	Type      flexString `json:"type"`
	Value     flexString `json:"value"`
	Module    flexString `json:"module"`
	Mechanism *struct {
		Type    flexString `json:"type"`
		Handled flexBool   `json:"handled"`
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

func (a *apiIssue) view(v *viewer) Issue {
	return Issue{
		ID:        v.text(string(a.ID), capName),
		ShortID:   v.text(a.ShortID, capName),
		Title:     v.secretText(a.Title, capTitle),
		Culprit:   v.text(a.Culprit, capName),
		Type:      v.text(string(a.Metadata.Type), capName),
		Value:     v.secretText(string(a.Metadata.Value), capTitle),
		Level:     v.text(a.Level, capName),
		Status:    v.text(a.Status, capName),
		Project:   v.text(a.Project.Slug, capName),
		Platform:  v.text(string(a.Platform), capName),
		Count:     int64(a.Count),
		UserCount: int64(a.UserCount),
		FirstSeen: fmtTime(a.FirstSeen.t),
		LastSeen:  fmtTime(a.LastSeen.t),
		Permalink: v.text(a.Permalink, capName*2),
	}
}

// view renders one value of tag key; key is the tag asked for (not the value's own
// "key" field), so the redaction rule follows what the caller named.
func (t apiTagValue) view(v *viewer, key string) TagValue {
	val := string(t.Value)
	if val == "" {
		val = string(t.Name)
	}
	return v.countedTagValue(key, val, int64(t.Count), t.FirstSeen.t, t.LastSeen.t)
}

func (e *apiEvent) eventID() string { return event.FirstNonEmpty(string(e.EventID), string(e.ID)) }

// toEventData maps an API event (with its entries) onto the shared event shape.
func (e *apiEvent) toEventData() *event.Event {
	out := &event.Event{
		ID:        e.eventID(),
		IssueID:   string(e.GroupID),
		Project:   string(e.ProjectID),
		Timestamp: e.DateCreated.t,
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
						ex.Mechanism, ex.Handled = string(x.Mechanism.Type), x.Mechanism.Handled.v
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
					Crashed    flexBool       `json:"crashed"`
					Current    flexBool       `json:"current"`
					Stacktrace *apiStacktrace `json:"stacktrace"`
				} `json:"values"`
			}
			if json.Unmarshal(entry.Data, &d) == nil && len(out.Stacktrace) == 0 {
				for _, t := range d.Values {
					if t.Stacktrace != nil && len(t.Stacktrace.Frames) > 0 && (len(out.Stacktrace) == 0 || (t.Crashed.v != nil && *t.Crashed.v)) {
						out.Stacktrace = apiFrames(t.Stacktrace.Frames)
					}
				}
			}
		case "breadcrumbs":
			var d struct {
				Values []sdkBreadcrumb `json:"values"`
			}
			if json.Unmarshal(entry.Data, &d) == nil {
				for _, b := range d.Values {
					out.Breadcrumbs = append(out.Breadcrumbs, event.Breadcrumb{
						Timestamp: b.Timestamp.t, Type: string(b.Type), Category: string(b.Category),
						Level: string(b.Level), Message: string(b.Message), Data: b.Data,
					})
				}
			}
		case "request":
			var d struct {
				URL     flexString      `json:"url"`
				Method  flexString      `json:"method"`
				Query   json.RawMessage `json:"query"`
				Headers flexPairs       `json:"headers"`
				Data    any             `json:"data"`
			}
			if json.Unmarshal(entry.Data, &d) == nil {
				r := &event.Request{URL: string(d.URL), Method: string(d.Method), Headers: d.Headers, Data: d.Data}
				var pairs flexPairs
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
				Formatted flexString `json:"formatted"`
				Message   flexString `json:"message"`
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
			Line: int(f.LineNo), Column: int(f.ColNo), InApp: f.InApp.v != nil && *f.InApp.v, Vars: f.Vars,
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
func (e *apiEvent) summary(v *viewer) EventSummary {
	d := e.toEventData()
	return EventSummary{
		ID:          v.text(d.ID, capName),
		Timestamp:   fmtTime(d.Timestamp),
		Title:       v.secretText(d.Title, capTitle),
		Message:     v.secretText(event.FirstLine(d.Message), capTitle),
		Level:       v.text(d.Level, capName),
		Environment: v.tagValue("environment", d.Environment),
		Release:     v.tagValue("release", d.Release),
		User:        v.tagValue("user", event.FirstNonEmpty(d.Tag("user"), d.User.Label())),
	}
}
