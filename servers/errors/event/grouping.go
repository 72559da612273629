package event

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Grouping decides which issue an event belongs to, the way Sentry does in outline:
//
//  1. The SDK's fingerprint, when it sent one. An element "{{ default }}" stands for
//     the default grouping below, so an SDK can refine it ("{{ default }}", "tenant-a").
//  2. Otherwise, for an exception: each exception type of the chain plus its in-app
//     frames (module, or the file when there is none, and function; for JavaScript,
//     Python, PHP and Ruby also the source line when the SDK sent it: frameKeyFor;
//     never line numbers, so an edit elsewhere in a file keeps the group). With no
//     in-app frame anywhere, all frames; with no frame at all, type and value.
//  3. Otherwise the message, by its template when the SDK sent one ("user %s not found"
//     is one issue for all users).
//  4. Otherwise the title.
//
// The issue id is a hash of the project and these parts, so it is the same after a
// restart, a replay or retention dropping the issue's first events.

// GroupingParts returns the parts that identify the event's issue.
func GroupingParts(e *Event) []string { return groupingPartsBy(e, frameKeyFor(e.Platform)) }

// groupingPartsBy is GroupingParts with the frames keyed by key (frameKeyFor's, or
// frameKeyV1 for the issue an earlier version filed the event under).
func groupingPartsBy(e *Event, key func(Frame) string) []string {
	if len(e.Fingerprint) == 0 {
		return defaultGrouping(e, key)
	}
	var parts []string
	for _, f := range e.Fingerprint {
		if isDefaultPlaceholder(f) {
			parts = append(parts, defaultGrouping(e, key)...)
		} else {
			parts = append(parts, "custom:"+f)
		}
	}
	return parts
}

func isDefaultPlaceholder(s string) bool {
	s = strings.ReplaceAll(s, " ", "")
	return s == "{{default}}"
}

func defaultGrouping(e *Event, key func(Frame) string) []string {
	if len(e.Exceptions) > 0 {
		anyInApp, anyFrame := false, false
		for _, x := range e.Exceptions {
			for _, f := range x.Frames {
				anyFrame = true
				anyInApp = anyInApp || f.InApp
			}
		}
		var parts []string
		for _, x := range e.Exceptions {
			parts = append(parts, "type:"+x.Type)
			if !anyFrame {
				parts = append(parts, "value:"+x.Value)
				continue
			}
			for _, f := range x.Frames {
				if anyInApp && !f.InApp {
					continue
				}
				parts = append(parts, "frame:"+key(f))
			}
		}
		return parts
	}
	if msg := FirstNonEmpty(e.MessageTemplate, e.Message); msg != "" {
		return []string{"message:" + msg}
	}
	if len(e.Stacktrace) > 0 {
		var parts []string
		for _, f := range e.Stacktrace {
			if f.InApp {
				parts = append(parts, "frame:"+key(f))
			}
		}
		if len(parts) > 0 {
			return parts
		}
	}
	return []string{"title:" + e.Title}
}

// IssueIDFor hashes the project and grouping parts into a stable issue id.
func IssueIDFor(project string, parts []string) string {
	h := sha256.New()
	h.Write([]byte(project))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// ShortIDFor makes a short human id: PROJECT-XXXXXX.
func ShortIDFor(project, issueID string) string {
	return strings.ToUpper(project) + "-" + strings.ToUpper(issueID[:min(6, len(issueID))])
}

// DeriveIssueFields fills the title, culprit and the tags Sentry derives from an
// event's fields (so that level:error or environment:production match like tags).
func DeriveIssueFields(e *Event) {
	if e.Title == "" {
		e.Title = eventTitle(e)
	}
	if e.Culprit == "" {
		e.Culprit = eventCulprit(e)
	}
	e.Tags = slices.Grow(e.Tags, 16) // the tags added below
	add := func(k, v string) {
		if v == "" || e.Tag(k) != "" || len(e.Tags) >= MaxTags+16 {
			return
		}
		e.Tags = append(e.Tags, Pair{Key: k, Value: Capped(strings.ReplaceAll(v, "\n", " "), MaxTagValue)})
	}
	add("level", e.Level)
	add("environment", e.Environment)
	add("release", e.Release)
	add("server_name", e.ServerName)
	add("transaction", e.Transaction)
	add("user", e.User.Label())
	if n := len(e.Exceptions); n > 0 {
		x := e.Exceptions[n-1]
		add("mechanism", x.Mechanism)
		if x.Handled != nil {
			add("handled", yesNo(*x.Handled))
		}
	}
	for _, c := range []string{"os", "runtime", "browser"} {
		ctx := e.Contexts[c]
		name, _ := ctx["name"].(string)
		version, _ := ctx["version"].(string)
		add(c+".name", name)
		add(c, strings.TrimSpace(name+" "+version))
	}
	if e.Request != nil {
		add("url", e.Request.URL)
	}
	SortPairs(e.Tags)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func eventTitle(e *Event) string {
	if n := len(e.Exceptions); n > 0 {
		x := e.Exceptions[n-1]
		v := FirstLine(x.Value)
		switch {
		case x.Type != "" && v != "":
			return Capped(x.Type+": "+v, 256)
		case x.Type != "":
			return Capped(x.Type, 256)
		case v != "":
			return Capped(v, 256)
		}
	}
	if m := FirstLine(e.Message); m != "" {
		return Capped(m, 256)
	}
	if e.Transaction != "" {
		return Capped(e.Transaction, 256)
	}
	return "<unlabeled event>"
}

// eventCulprit names where it happened: the transaction, else the innermost in-app
// frame of the reported exception, else (as Sentry does when the SDK marked no frame
// in-app, which sentry-go does for a -trimpath build) its innermost frame.
func eventCulprit(e *Event) string {
	if e.Transaction != "" {
		return Capped(e.Transaction, 256)
	}
	frames := e.Stacktrace
	if n := len(e.Exceptions); n > 0 {
		frames = e.Exceptions[n-1].Frames
	}
	at := -1
	for i := len(frames) - 1; i >= 0 && at < 0; i-- {
		if frames[i].InApp {
			at = i
		}
	}
	if at < 0 {
		at = len(frames) - 1
	}
	if at < 0 {
		return ""
	}
	f := frames[at]
	if f.Module != "" {
		return Capped(fmt.Sprintf("%s in %s", f.Module, f.Function), 256)
	}
	return Capped(fmt.Sprintf("%s in %s", FirstNonEmpty(f.Filename, f.AbsPath), f.Function), 256)
}

func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}
