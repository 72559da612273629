package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Question is what the developer asks the assistant.
const Question = "Why has checkout been failing since this morning? Check the recent errors and look at the payment code."

// Answer is the material a good answer is made of, as the tool results gave it.
type Answer struct {
	IssueID   string `json:"issueId"`
	ShortID   string `json:"shortId,omitempty"`
	Title     string `json:"title"`
	Count     int64  `json:"count"`     // events of the issue in the searched window
	Users     int64  `json:"userCount"` // distinct users
	FirstSeen string `json:"firstSeen"`
	LastSeen  string `json:"lastSeen"`
	Now       string `json:"now,omitempty"` // the server's clock, when a result gives it

	Release       string `json:"release"`       // most frequent release of the issue's events
	ReleaseEvents int64  `json:"releaseEvents"` // events with it
	Releases      int64  `json:"releases"`      // distinct releases

	Currency       string `json:"currency"`       // most frequent value of the currency tag
	CurrencyEvents int64  `json:"currencyEvents"` // events with it
	CurrencyTagged int64  `json:"currencyTagged"` // events with the tag at all
	Currencies     int64  `json:"currencies"`     // distinct values

	Frame      string `json:"frame"`      // the innermost in-app frame as get_event shows it: its local path (mapped) or the file the SDK reported, and line
	Function   string `json:"function"`   // its function
	Line       int    `json:"line"`       // its line
	Mapped     string `json:"mapped"`     // the path the filesystem server read it at
	Found      string `json:"found"`      // how the host got that path: "code mapping" (the frame's path), "as reported", or "search"
	SourceLine string `json:"sourceLine"` // that line of the source, as read

	Table     string   `json:"table"`               // the name the failing line indexes with the currency
	TableFile string   `json:"tableFile,omitempty"` // where it is defined
	TableKeys []string `json:"tableKeys,omitempty"` // the currencies it has
}

// The shapes of the results the investigation reads (the errors server's JSON; see
// servers/errors/backend/results.go).
type (
	issueList struct {
		Issues []issue `json:"issues"`
		Now    string  `json:"now"`
	}
	issue struct {
		ID        string `json:"id"`
		ShortID   string `json:"shortId"`
		Title     string `json:"title"`
		Count     int64  `json:"count"`
		UserCount int64  `json:"userCount"`
		FirstSeen string `json:"firstSeen"`
		LastSeen  string `json:"lastSeen"`
	}
	issueDetail struct {
		issue
		Now        string            `json:"now"`
		EveryEvent map[string]string `json:"everyEvent"` // tags with one value on every event
		Tags       []struct {
			Key          string `json:"key"`
			TotalValues  int64  `json:"totalValues"`
			UniqueValues int64  `json:"uniqueValues"`
			TopValues    []struct {
				Value string `json:"value"`
				Count int64  `json:"count"`
			} `json:"topValues"`
		} `json:"tags"`
	}
	event struct {
		Exceptions []struct {
			Type   string           `json:"type"`
			Value  string           `json:"value"`
			Frames []map[string]any `json:"frames"`
		} `json:"exceptions"`
	}
	contentMatches struct {
		Matches []struct {
			Path  string   `json:"path"`
			Line  int      `json:"line"`
			Text  string   `json:"text"`
			After []string `json:"after"`
		} `json:"matches"`
	}
)

// investigate makes the calls a good model makes for Question, in order, reading
// each result before choosing the next call, and returns what it found. It
// prefers what the servers offer (tools/list): a frame with a local path is read
// as given, by line when read_text_file takes a line; otherwise it does what a
// model must: try the reported path, then find the file under the allowed
// directories and read a range around the line.
func investigate(ctx context.Context, h *host) (*Answer, error) {
	a := &Answer{}

	// 1. What is failing, most frequent first, over the night.
	c, err := h.call(ctx, "errors/http", "search_issues", map[string]any{"query": "is:unresolved", "statsPeriod": "12h", "sort": "freq", "limit": 5})
	if err != nil {
		return a, err
	}
	var issues issueList
	if err := decode(c, &issues); err != nil {
		return a, err
	}
	if len(issues.Issues) == 0 {
		return a, fmt.Errorf("search_issues found no issue: %s", c.Text)
	}
	top := issues.Issues[0]
	a.IssueID, a.ShortID, a.Title, a.Count, a.Users, a.FirstSeen, a.LastSeen, a.Now =
		top.ID, top.ShortID, top.Title, top.Count, top.UserCount, top.FirstSeen, top.LastSeen, issues.Now

	// 2. Who and what it affects: the releases and the tags of its events.
	if c, err = h.call(ctx, "errors/http", "get_issue", map[string]any{"issueId": top.ID}); err != nil {
		return a, err
	}
	var detail issueDetail
	if err := decode(c, &detail); err != nil {
		return a, err
	}
	for key, v := range detail.EveryEvent {
		switch key {
		case "release":
			a.Release, a.ReleaseEvents, a.Releases = v, detail.Count, 1
		case "currency":
			a.Currency, a.CurrencyEvents, a.CurrencyTagged, a.Currencies = v, detail.Count, detail.Count, 1
		}
	}
	for _, t := range detail.Tags {
		if len(t.TopValues) == 0 {
			continue
		}
		switch t.Key {
		case "release":
			a.Release, a.ReleaseEvents, a.Releases = t.TopValues[0].Value, t.TopValues[0].Count, t.UniqueValues
		case "currency":
			a.Currency, a.CurrencyEvents, a.CurrencyTagged, a.Currencies = t.TopValues[0].Value, t.TopValues[0].Count, t.TotalValues, t.UniqueValues
		}
	}

	// 3. Where: the stack of its latest event, in-app frames first, innermost first.
	if c, err = h.call(ctx, "errors/stdio", "get_event", map[string]any{"issueId": top.ID, "maxFrames": 4, "maxBreadcrumbs": 1}); err != nil {
		return a, err
	}
	var ev event
	if err := decode(c, &ev); err != nil {
		return a, err
	}
	var frame map[string]any
	for _, x := range ev.Exceptions {
		for _, f := range x.Frames {
			if f["inApp"] == true {
				frame = f
				break
			}
		}
		if frame != nil {
			break
		}
	}
	if frame == nil && len(ev.Exceptions) > 0 && len(ev.Exceptions[0].Frames) > 0 {
		// No frame marked in-app: take the innermost, where it was raised.
		frame = ev.Exceptions[0].Frames[0]
	}
	if frame == nil {
		return a, fmt.Errorf("get_event shows no stack frame: %s", c.Text)
	}
	file, _ := frame["file"].(string) // as the SDK reported it
	line, _ := frame["line"].(float64)
	a.Function, _ = frame["function"].(string)
	a.Line = int(line)
	local := localPath(frame)
	a.Frame = fmt.Sprintf("%s:%d", cmp.Or(local, file), a.Line)

	// 4. The failing line, read through the filesystem server.
	fs := h.servers["filesystem"]
	if err := h.connect(ctx, fs); err != nil {
		return a, err
	}
	read := func(p string) (call, error) {
		args := map[string]any{"path": p, "offset": max(a.Line-1-readContext, 0), "limit": 2*readContext + 1}
		if fs.hasParam("read_text_file", "line") {
			args = map[string]any{"path": p, "line": a.Line, "context": readContext, "lineNumbers": true}
		}
		return h.call(ctx, "filesystem", "read_text_file", args)
	}
	a.Found = "as reported"
	if p, _ := frame["path"].(string); p != "" {
		a.Found = "code mapping"
	}
	if local != "" {
		c, err = read(local)
	} else if c, err = read(file); err == nil && !c.IsError {
		local, a.Found = file, "as reported" // the reported path happened to work
	} else if err == nil {
		a.Found = "search"
		// Not a path the server knows (a -trimpath build reports its module path):
		// find the file under the allowed directories, then read it.
		if local, err = findFile(ctx, h, file); err == nil {
			c, err = read(local)
		}
	}
	if err != nil {
		return a, err
	}
	if c.IsError {
		return a, fmt.Errorf("read_text_file %s: %s", local, c.Text)
	}
	a.Mapped = local
	if a.SourceLine, err = lineOf(c.Text, a.Line); err != nil {
		return a, err
	}

	// 5. The table the failing line looks the currency up in.
	m := tableIndex.FindStringSubmatch(a.SourceLine)
	if m == nil {
		return a, nil
	}
	a.Table = m[1]
	if c, err = h.call(ctx, "filesystem", "search_file_contents", map[string]any{"pattern": a.Table + " = ", "literal": true, "include": "*.go", "contextLines": 6}); err != nil {
		return a, err
	}
	var found contentMatches
	if err := decode(c, &found); err != nil {
		return a, err
	}
	for _, mt := range found.Matches {
		a.TableFile = fmt.Sprintf("%s:%d", mt.Path, mt.Line)
		for _, l := range mt.After {
			if k := mapKey.FindStringSubmatch(l); k != nil {
				a.TableKeys = append(a.TableKeys, k[1])
			}
			if strings.TrimSpace(l) == "}" {
				break
			}
		}
	}
	return a, nil
}

// readContext is the lines read on either side of the failing line.
const readContext = 5

var (
	tableIndex = regexp.MustCompile(`(\w+)\[currency\]`)
	mapKey     = regexp.MustCompile(`^\s*"([A-Z]{3})":`)
)

// localPath is the frame's path on this machine when the errors server mapped it
// (path, from its code mappings), or the file itself when the SDK reported an
// absolute path.
func localPath(frame map[string]any) string {
	if p, _ := frame["path"].(string); p != "" {
		return p
	}
	if f, _ := frame["file"].(string); strings.HasPrefix(f, "/") {
		return f
	}
	return ""
}

// findFile looks for a frame's file under the filesystem server's directories:
// list them, search for the file's name, and take the match whose path ends with
// the most of the frame's path.
func findFile(ctx context.Context, h *host, file string) (string, error) {
	c, err := h.call(ctx, "filesystem", "list_allowed_directories", map[string]any{})
	if err != nil {
		return "", err
	}
	root := ""
	for _, l := range strings.FieldsFunc(c.Text, func(r rune) bool {
		return r == '\n' || r == '"' || r == ',' || r == '[' || r == ']' || r == '{' || r == '}' || r == ':' || r == ' '
	}) {
		if strings.HasPrefix(l, "/") {
			root = l
			break
		}
	}
	if root == "" {
		return "", fmt.Errorf("list_allowed_directories named no directory: %s", c.Text)
	}
	if c, err = h.call(ctx, "filesystem", "search_files", map[string]any{"path": root, "pattern": path.Base(file)}); err != nil {
		return "", err
	}
	var res struct {
		Matches []struct {
			Path string `json:"path"`
		} `json:"matches"`
	}
	if err := decode(c, &res); err != nil {
		return "", err
	}
	best, bestLen := "", -1
	for _, m := range res.Matches {
		n := commonSuffix(m.Path, file)
		if n > bestLen {
			best, bestLen = m.Path, n
		}
	}
	if best == "" {
		return "", fmt.Errorf("search_files found no %s under %s", path.Base(file), root)
	}
	return best, nil
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// lineOf finds line n in what read_text_file returned: JSON with content and
// startLine, or text with numbered lines.
func lineOf(text string, n int) (string, error) {
	var r struct {
		Content   *string `json:"content"`
		StartLine int     `json:"startLine"`
	}
	if json.Unmarshal([]byte(text), &r) == nil && r.Content != nil {
		lines := strings.Split(*r.Content, "\n")
		if i := n - r.StartLine; r.StartLine > 0 && i >= 0 && i < len(lines) {
			return lines[i], nil
		}
		return "", fmt.Errorf("read_text_file did not return line %d: %s", n, text)
	}
	prefix := regexp.MustCompile(`^\s*` + strconv.Itoa(n) + `\b[\s:|→]*`)
	for _, l := range strings.Split(text, "\n") {
		if loc := prefix.FindStringIndex(l); loc != nil {
			return l[loc[1]:], nil
		}
	}
	return "", fmt.Errorf("read_text_file did not return line %d: %s", n, text)
}

// decode reads a successful JSON tool result.
func decode(c call, v any) error {
	if c.IsError {
		return fmt.Errorf("%s %s failed: %s", c.Server, c.Tool, c.Text)
	}
	if err := json.Unmarshal([]byte(c.Text), v); err != nil {
		return fmt.Errorf("%s %s: result is not the JSON expected: %v: %s", c.Server, c.Tool, err, c.Text)
	}
	return nil
}
