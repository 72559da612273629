package backend

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/event"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Size caps, in bytes, for each kind of text shown to a model. They keep one event to
// a few tens of kilobytes however large the SDK's payload was.
const (
	CapTitle       = 500
	CapMessage     = 8 << 10
	capExcValue    = 4 << 10
	CapName        = 300 // types, functions, modules, files, tag and context values
	CapCodeLine    = 300
	CapVarValue    = 300
	capCrumbText   = 1 << 10
	capHeaderValue = 500
	capBody        = 4 << 10
	capExtraValue  = 1 << 10

	MaxContextFrames = 5  // in-app frames that get source lines
	MaxContextLines  = 11 // per frame: the line and 5 either side
	maxVarFrames     = 3  // in-app frames that get variables
	maxVars          = 20
	maxCrumbData     = 10
	maxHeaders       = 30
	maxQuery         = 30
	maxTags          = 100
	maxContexts      = 10
	maxContextKeys   = 15
	maxExtra         = 30
	maxExceptions    = 10
)

// Viewer turns untrusted event data into display values and remembers what it cut.
type Viewer struct {
	textCut bool
	hints   []string
	// Codes map frame files to local paths and decide in-app frames (nil: the SDK's).
	codes *event.CodeMap
	// mapped counts frames given a local path; firstFrame is the first frame shown
	// with a file, for the notice on how to add a code mapping.
	mapped     int
	firstFrame *event.Frame
	// page: the text is for the browser page (page.go), not a model: hidden
	// characters are shown as visible escapes (markHidden) instead of dropped, so a
	// person sees that an event carried them, and a mapped frame keeps the file the
	// SDK reported beside its local path.
	Page bool
}

// Text strips invisible and bidirectional characters and caps s at max bytes.
func (v *Viewer) Text(s string, max int) string {
	var out string
	var cut bool
	if v.Page {
		out, cut = mcpkit.TruncateText(MarkHidden(s), max)
	} else {
		out, cut = mcpkit.CleanText(s, max)
	}
	if cut {
		v.textCut = true
	}
	return out
}

// SecretText is text that may hold inline secrets: redacted, then cleaned.
func (v *Viewer) SecretText(s string, max int) string { return v.Text(event.RedactText(s), max) }

// TagValue renders the value of tag key for a tool result: redacted by redactValue,
// then cleaned and capped. Every view of a tag value goes through it on both backends
// (get_event's tags, environment, release and transaction; get_issue's tag summary;
// get_tag_values; list_issue_events; the issue resource), so no view shows a value
// that another one redacts.
func (v *Viewer) TagValue(key, value string) string {
	return v.Text(event.RedactValue(key, value), CapName)
}

// CountedTagValue is one counted value of tag key (get_issue's summary, get_tag_values).
func (v *Viewer) CountedTagValue(key, value string, count int64, first, last time.Time) TagValue {
	return TagValue{Value: v.TagValue(key, value), Count: count, FirstSeen: FormatTime(first), LastSeen: FormatTime(last)}
}

// JSONText renders a decoded JSON value (already redacted) compactly for display,
// with mcpkit's one JSON encoding: <, > and & stay as they are (the page escapes its
// Text through html/template).
func (v *Viewer) JSONText(x any, max int) string {
	s, err := mcpkit.JSONText(x)
	if err != nil {
		return v.Text(fmt.Sprint(x), max)
	}
	return v.Text(s, max)
}

func (v *Viewer) Finish(t *mcpkit.Truncation) {
	if v.textCut {
		v.hints = append(v.hints, "some long texts were cut at fixed sizes")
	}
	if len(v.hints) > 0 {
		var uniq []string
		for _, h := range v.hints {
			if !slices.Contains(uniq, h) {
				uniq = append(uniq, h)
			}
		}
		t.Cut(strings.Join(uniq, "; "))
	}
}

// FormatTime renders a time for a tool result: RFC 3339 in UTC with milliseconds.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

type ViewOptions struct {
	MaxFrames      int
	MaxBreadcrumbs int
	// Codes are the code mappings and in-app prefixes (nil: none), passed from the
	// server's configuration through GetEventInput.
	Codes *event.CodeMap
	// page: rendered for the browser page (see viewer.page).
	page bool
}

// ResolveViewOptions validates GetEventInput's caps and applies defaults.
func ResolveViewOptions(in GetEventInput) (ViewOptions, error) {
	o := ViewOptions{MaxFrames: in.MaxFrames, MaxBreadcrumbs: in.MaxBreadcrumbs, Codes: in.Codes, page: in.Page}
	if o.MaxFrames < 0 || o.MaxFrames > MaxFrames {
		return o, fmt.Errorf("%w: maxFrames %d is out of range: give 1 to %d (0 means %d)", ErrInvalidInput, o.MaxFrames, MaxFrames, DefaultMaxFrames)
	}
	if o.MaxFrames == 0 {
		o.MaxFrames = DefaultMaxFrames
	}
	if o.MaxBreadcrumbs < 0 || o.MaxBreadcrumbs > MaxBreadcrumbs {
		return o, fmt.Errorf("%w: maxBreadcrumbs %d is out of range: give 0 to %d (0 means %d)", ErrInvalidInput, o.MaxBreadcrumbs, MaxBreadcrumbs, DefaultMaxBreadcrumbs)
	}
	if o.MaxBreadcrumbs == 0 {
		o.MaxBreadcrumbs = DefaultMaxBreadcrumbs
	}
	return o, nil
}

// ViewEvent builds the tool result for one event.
func ViewEvent(e *event.Event, opt ViewOptions) *Event {
	v := &Viewer{codes: opt.Codes, Page: opt.page}
	out := &Event{
		ID:          v.Text(e.ID, CapName),
		IssueID:     v.Text(e.IssueID, CapName),
		Project:     v.Text(e.Project, CapName),
		Timestamp:   FormatTime(e.Timestamp),
		Title:       v.SecretText(e.Title, CapTitle),
		Message:     v.SecretText(e.Message, CapMessage),
		Level:       v.Text(e.Level, CapName),
		Platform:    v.Text(e.Platform, CapName),
		Culprit:     v.Text(e.Culprit, CapName),
		Transaction: v.TagValue("transaction", e.Transaction),
		Release:     v.TagValue("release", event.FirstNonEmpty(e.Release, e.Tag("release"))),
		Environment: v.TagValue("environment", event.FirstNonEmpty(e.Environment, e.Tag("environment"))),
	}
	if c := opt.Codes.Culprit(e); c != "" {
		out.Culprit = v.Text(c, CapName)
	}
	excs := e.Exceptions
	if len(excs) > maxExceptions {
		// Keep the outermost ones: they are what was reported.
		excs = excs[len(excs)-maxExceptions:]
		v.hints = append(v.hints, fmt.Sprintf("exception chain cut to the outermost %d", maxExceptions))
	}
	framesCut := false
	for i := len(excs) - 1; i >= 0; i-- {
		x := excs[i]
		frames, omitted := v.frames(opt.Codes.ApplyInApp(x.Frames), opt.MaxFrames)
		framesCut = framesCut || omitted > 0
		out.Exceptions = append(out.Exceptions, Exception{
			Type:          v.Text(x.Type, CapName),
			Value:         v.SecretText(x.Value, capExcValue),
			Module:        v.Text(x.Module, CapName),
			Mechanism:     v.Text(x.Mechanism, CapName),
			Handled:       x.Handled,
			Frames:        frames,
			FramesOmitted: omitted,
		})
	}
	if len(e.Stacktrace) > 0 {
		out.Stacktrace, out.FramesOmitted = v.frames(opt.Codes.ApplyInApp(e.Stacktrace), opt.MaxFrames)
		framesCut = framesCut || out.FramesOmitted > 0
	}
	if v.mapped == 0 && v.firstFrame != nil {
		out.Notice = v.mappingNotice(v.firstFrame, opt.Codes != nil && len(opt.Codes.Local) > 0)
	}
	if framesCut {
		v.hints = append(v.hints, fmt.Sprintf("stack frames cut at maxFrames=%d (in-app frames kept first): call again with a larger maxFrames (up to %d) for more", opt.MaxFrames, MaxFrames))
	}
	crumbs := e.Breadcrumbs
	if len(crumbs) > opt.MaxBreadcrumbs {
		out.BreadcrumbsOmitted = len(crumbs) - opt.MaxBreadcrumbs
		crumbs = crumbs[len(crumbs)-opt.MaxBreadcrumbs:]
		v.hints = append(v.hints, fmt.Sprintf("older breadcrumbs left out at maxBreadcrumbs=%d: call again with up to %d", opt.MaxBreadcrumbs, MaxBreadcrumbs))
	}
	for _, b := range crumbs {
		out.Breadcrumbs = append(out.Breadcrumbs, Breadcrumb{
			Timestamp: FormatTime(b.Timestamp),
			Type:      v.Text(b.Type, CapName),
			Category:  v.Text(b.Category, CapName),
			Level:     v.Text(b.Level, CapName),
			Message:   v.SecretText(b.Message, capCrumbText),
			Data:      v.anyMap(b.Data, maxCrumbData, CapVarValue),
		})
	}
	out.Request = v.request(e.Request)
	if u := e.User; u != nil && *u != (event.User{}) {
		out.User = &User{ID: v.Text(u.ID, CapName), Username: v.Text(u.Username, CapName), Email: v.Text(u.Email, CapName), IP: v.Text(u.IP, CapName)}
	}
	tags := slices.Clone(e.Tags)
	sort.SliceStable(tags, func(i, j int) bool { return tags[i].Key < tags[j].Key })
	if len(tags) > maxTags {
		tags = tags[:maxTags]
		v.hints = append(v.hints, fmt.Sprintf("tags cut to the first %d by key", maxTags))
	}
	shown := map[string]string{ // tags whose value a field of the result already shows
		"environment": out.Environment, "release": out.Release, "level": out.Level, "transaction": out.Transaction,
	}
	if out.User != nil {
		shown["user"] = v.Text(e.User.Label(), CapName)
	}
	if out.Request != nil {
		shown["url"] = out.Request.URL
	}
	if len(out.Exceptions) > 0 {
		shown["mechanism"] = out.Exceptions[0].Mechanism
		if h := out.Exceptions[0].Handled; h != nil {
			shown["handled"] = map[bool]string{true: "yes", false: "no"}[*h]
		}
	}
	out.Contexts = v.contexts(e.Contexts)
	for _, t := range tags {
		tag := Tag{Key: v.Text(t.Key, CapName), Value: v.TagValue(t.Key, t.Value)}
		if s, ok := shown[tag.Key]; ok && s == tag.Value && s != "" {
			continue
		}
		if contextShows(out.Contexts, tag.Key, tag.Value) {
			continue
		}
		out.Tags = append(out.Tags, tag)
	}
	out.Extra = v.anyMap(e.Extra, maxExtra, capExtraValue)
	v.Finish(&out.Truncation)
	return out
}

// contextShows reports whether the tag key=value repeats a context the result shows
// (contexts as rendered): os.name is the os context's name, os (and runtime, browser)
// its name with its version, and any other X.field the field of context X.
func contextShows(contexts map[string]map[string]string, key, value string) bool {
	name, field, dotted := strings.Cut(key, ".")
	c, ok := contexts[name]
	if !ok || value == "" {
		return false
	}
	if dotted {
		return c[field] == value
	}
	return value == c["name"] || value == strings.TrimSpace(c["name"]+" "+c["version"])
}

// orderFrames puts in-app frames first and, within each group, the innermost call
// (where the error was raised) first. Input is in protocol order (outermost first).
func orderFrames(frames []event.Frame) []event.Frame {
	out := make([]event.Frame, 0, len(frames))
	for i := len(frames) - 1; i >= 0; i-- {
		if frames[i].InApp {
			out = append(out, frames[i])
		}
	}
	for i := len(frames) - 1; i >= 0; i-- {
		if !frames[i].InApp {
			out = append(out, frames[i])
		}
	}
	return out
}

func (v *Viewer) frames(in []event.Frame, max int) ([]Frame, int) {
	if len(in) == 0 {
		return nil, 0
	}
	ordered := orderFrames(in)
	omitted := 0
	if len(ordered) > max {
		omitted = len(ordered) - max
		ordered = ordered[:max]
	}
	out := make([]Frame, 0, len(ordered))
	inApp := 0
	for i := range ordered {
		f := &ordered[i]
		fr := Frame{
			Function: v.Text(f.Function, CapName),
			Module:   v.Text(f.Module, CapName),
			File:     v.Text(event.FirstNonEmpty(f.Filename, f.AbsPath), CapName),
			Line:     f.Line,
			Column:   f.Column,
			InApp:    f.InApp,
		}
		if fr.File != "" && v.firstFrame == nil {
			v.firstFrame = f
		}
		if p := v.codes.LocalPath(f); p != "" {
			// The local path says everything the build path did.
			fr.Path = v.Text(p, CapName*2)
			if !v.Page {
				fr.File = ""
			}
			v.mapped++
		} else if r := v.codes.RepoPath(f); r != "" {
			fr.Repo = v.Text(r, CapName*2)
		}
		if fr.Module != "" && moduleInFile(fr.Module, event.FirstNonEmpty(f.Filename, f.AbsPath)) {
			fr.Module = "" // example.com/shop/checkout of example.com/shop/checkout/payment.go
		}
		if f.InApp {
			if inApp < MaxContextFrames {
				fr.Context = v.context(f.Context, f.Line)
			}
			if inApp < maxVarFrames {
				fr.Vars = v.anyMap(f.Vars, maxVars, CapVarValue)
			}
			inApp++
		}
		out = append(out, fr)
	}
	return out, omitted
}

// moduleInFile reports whether a Go-style module (package path) is the directory of
// file, which then says it already.
func moduleInFile(module, file string) bool {
	file = strings.ReplaceAll(file, `\`, "/")
	i := strings.LastIndexByte(file, '/')
	return i > 0 && (file[:i] == module || strings.HasSuffix(file[:i], "/"+module))
}

// context keeps at most maxContextLines source lines centred on the frame's line.
func (v *Viewer) context(lines []event.ContextLine, current int) []ContextLine {
	if len(lines) == 0 {
		return nil
	}
	at := slices.IndexFunc(lines, func(l event.ContextLine) bool { return l.Line == current })
	lo, hi := 0, len(lines)
	if len(lines) > MaxContextLines {
		if at < 0 {
			at = len(lines) / 2
		}
		lo = max(0, at-MaxContextLines/2)
		hi = min(len(lines), lo+MaxContextLines)
		lo = max(0, hi-MaxContextLines)
	}
	out := make([]ContextLine, 0, hi-lo)
	for _, l := range lines[lo:hi] {
		out = append(out, ContextLine{Line: l.Line, Code: v.SecretText(l.Code, CapCodeLine), Current: l.Line == current && current != 0})
	}
	return out
}

// anyMap renders a map of decoded JSON values: keys sorted, secret-looking keys
// redacted at any depth, values as compact JSON text (strings as themselves).
func (v *Viewer) anyMap(m map[string]any, maxKeys, capValue int) map[string]string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > maxKeys {
		keys = keys[:maxKeys]
		v.hints = append(v.hints, fmt.Sprintf("maps cut to their first %d keys", maxKeys))
	}
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		val := event.RedactAny(k, m[k])
		if s, ok := val.(string); ok {
			out[v.Text(k, CapName)] = v.Text(s, capValue)
		} else {
			out[v.Text(k, CapName)] = v.JSONText(val, capValue)
		}
	}
	return out
}

func (v *Viewer) pairs(in []event.Pair, maxN, capValue int) map[string]string {
	if len(in) == 0 {
		return nil
	}
	in = event.RedactPairs(in)
	out := map[string]string{}
	for _, p := range in {
		k := v.Text(p.Key, CapName)
		if _, dup := out[k]; !dup && len(out) >= maxN {
			v.hints = append(v.hints, fmt.Sprintf("request headers or query cut at %d entries", maxN))
			break
		}
		val := v.Text(p.Value, capValue)
		if prev, dup := out[k]; dup {
			val = v.Text(prev+", "+val, capValue)
		}
		out[k] = val
	}
	return out
}

func (v *Viewer) request(r *event.Request) *Request {
	if r == nil {
		return nil
	}
	u, urlQuery := event.RedactURL(r.URL)
	q := r.Query
	if len(q) == 0 {
		q = urlQuery
	}
	out := &Request{
		Method:  v.Text(r.Method, CapName),
		URL:     v.Text(u, CapName*2),
		Query:   v.pairs(q, maxQuery, CapVarValue),
		Headers: v.pairs(r.Headers, maxHeaders, capHeaderValue),
		Data:    v.Body(r.Data),
	}
	if out.Method == "" && out.URL == "" && len(out.Query) == 0 && len(out.Headers) == 0 && out.Data == "" {
		return nil
	}
	return out
}

// Body renders a request body: structured data is redacted by key; a string is parsed
// as JSON or a form if it is one, and otherwise redacted as free text.
func (v *Viewer) Body(d any) string {
	switch x := d.(type) {
	case nil:
		return ""
	case string:
		var parsed any
		if err := json.Unmarshal([]byte(x), &parsed); err == nil {
			if _, isObj := parsed.(map[string]any); isObj {
				return v.JSONText(event.RedactAny("", parsed), capBody)
			}
			if _, isArr := parsed.([]any); isArr {
				return v.JSONText(event.RedactAny("", parsed), capBody)
			}
		}
		if strings.Contains(x, "=") && !strings.ContainsAny(x, " \n{") {
			var parts []string
			for _, p := range event.RedactQueryString(x) {
				parts = append(parts, p.Key+"="+p.Value)
			}
			return v.Text(strings.Join(parts, "&"), capBody)
		}
		return v.SecretText(x, capBody)
	default:
		return v.JSONText(event.RedactAny("", x), capBody)
	}
}

func (v *Viewer) contexts(in map[string]event.Context) map[string]map[string]string {
	if len(in) == 0 {
		return nil
	}
	names := make([]string, 0, len(in))
	for k := range in {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) > maxContexts {
		names = names[:maxContexts]
		v.hints = append(v.hints, fmt.Sprintf("contexts cut to the first %d", maxContexts))
	}
	out := map[string]map[string]string{}
	for _, n := range names {
		if event.IsSecretKey(n) {
			continue
		}
		if m := v.anyMap(in[n], maxContextKeys, CapName); len(m) > 0 {
			out[v.Text(n, CapName)] = m
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// mappingNotice says how to get local paths when frames carry files but none was
// mapped: it names the directory of the first frame's file as a stack root to map.
// A frame whose absolute path exists on this machine needs no mapping.
func (v *Viewer) mappingNotice(first *event.Frame, configured bool) string {
	if filepath.IsAbs(first.AbsPath) {
		if _, err := os.Stat(first.AbsPath); err == nil {
			return ""
		}
	}
	file := event.FirstNonEmpty(first.Filename, first.AbsPath) // the file the frame shows
	if file == "" || strings.Contains(file, "://") {
		return ""
	}
	if filepath.IsAbs(file) {
		if _, err := os.Stat(file); err == nil {
			return ""
		}
	}
	dir := strings.ReplaceAll(file, `\`, "/")
	if i := strings.LastIndexByte(dir, '/'); i > 0 {
		dir = dir[:i+1]
	}
	dir = v.Text(dir, CapName)
	what := "no code mapping covers"
	if !configured {
		what = "no code mappings are set for"
	}
	return fmt.Sprintf("%s frame files such as %s: to get local paths, start this server with --code-mapping %s=DIR (env ERRORS_CODE_MAPPINGS), DIR being where that directory is on this machine", what, dir, dir)
}
