package errorserver

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// DefaultStatsPeriod is the search window when none is given (Sentry's UI default).
const DefaultStatsPeriod = "14d"

// timeWindow is a validated search window. For a relative window Period is kept as
// given so the Sentry backend can pass it on unchanged.
type timeWindow struct {
	Period     string
	Start, End time.Time
}

var periodPattern = regexp.MustCompile(`^([0-9]{1,6})([smhdw])$`)

// parsePeriod parses Sentry's statsPeriod: a number and one of s, m, h, d, w.
func parsePeriod(p string) (time.Duration, error) {
	m := periodPattern.FindStringSubmatch(p)
	if m == nil {
		return 0, fmt.Errorf("%w: statsPeriod %q is not a period: give a number and a unit s, m, h, d or w, such as 24h or 14d", ErrInvalidInput, p)
	}
	n, _ := strconv.Atoi(m[1])
	if n == 0 {
		return 0, fmt.Errorf("%w: statsPeriod %q is empty: give a positive period such as 24h", ErrInvalidInput, p)
	}
	unit := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}[m[2]]
	if d := time.Duration(n) * unit; d <= 10*365*24*time.Hour {
		return d, nil
	}
	return 0, fmt.Errorf("%w: statsPeriod %q is longer than ten years", ErrInvalidInput, p)
}

// parseInstant accepts RFC 3339 with or without a zone (UTC assumed) and a bare date.
func parseInstant(name, s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: %s %q is not a time: give RFC 3339 such as 2026-05-01T00:00:00Z", ErrInvalidInput, name, s)
}

// resolveWindow validates statsPeriod versus start/end and returns the window, with
// DefaultStatsPeriod when neither is given. now is used for relative windows.
func resolveWindow(period, start, end string, now time.Time) (timeWindow, error) {
	period, start, end = strings.TrimSpace(period), strings.TrimSpace(start), strings.TrimSpace(end)
	if period != "" && (start != "" || end != "") {
		return timeWindow{}, fmt.Errorf("%w: give statsPeriod or start and end, not both", ErrInvalidInput)
	}
	if (start == "") != (end == "") {
		return timeWindow{}, fmt.Errorf("%w: start and end go together: give both (RFC 3339) or use statsPeriod such as 24h", ErrInvalidInput)
	}
	if start != "" {
		s, err := parseInstant("start", start)
		if err != nil {
			return timeWindow{}, err
		}
		e, err := parseInstant("end", end)
		if err != nil {
			return timeWindow{}, err
		}
		if !e.After(s) {
			return timeWindow{}, fmt.Errorf("%w: end %s is not after start %s", ErrInvalidInput, end, start)
		}
		return timeWindow{Start: s, End: e}, nil
	}
	if period == "" {
		period = DefaultStatsPeriod
	}
	d, err := parsePeriod(period)
	if err != nil {
		return timeWindow{}, err
	}
	return timeWindow{Period: period, Start: now.Add(-d), End: now}, nil
}

// resolveLimit applies the default and checks the range of a page size.
func resolveLimit(n int) (int, error) {
	if n < 0 || n > MaxLimit {
		return 0, fmt.Errorf("%w: limit %d is out of range: give 1 to %d (0 means %d)", ErrInvalidInput, n, MaxLimit, DefaultLimit)
	}
	if n == 0 {
		return DefaultLimit, nil
	}
	return n, nil
}

// Sort orders accepted by SearchIssues.
var sortOrders = []string{"date", "new", "freq", "user"}

func resolveSort(s string) (string, error) {
	if s == "" {
		return "date", nil
	}
	for _, o := range sortOrders {
		if s == o {
			return s, nil
		}
	}
	return "", fmt.Errorf("%w: sort %q is not one of date, new, freq, user", ErrInvalidInput, s)
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$`)

// checkID validates an issue id, short id, project slug or organization slug: these
// become URL path segments, so anything else is refused before a request is built.
func checkID(name, id string) error {
	if id == "" {
		return fmt.Errorf("%w: %s is required", ErrInvalidInput, name)
	}
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%w: %s %q is not an id: use letters, digits, '-', '_' and '.' as list results show them", ErrInvalidInput, name, truncateForError(id))
	}
	return nil
}

var eventIDPattern = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)

// normalizeEventRef accepts latest, oldest, recommended (as latest) or an event id
// with or without dashes, and returns latest, oldest or 32 lower-case hex digits.
func normalizeEventRef(ref string) (string, error) {
	switch r := strings.ToLower(strings.TrimSpace(ref)); r {
	case "", "latest", "recommended":
		return "latest", nil
	case "oldest":
		return "oldest", nil
	default:
		id := strings.ReplaceAll(r, "-", "")
		if eventIDPattern.MatchString(id) {
			return id, nil
		}
	}
	return "", fmt.Errorf("%w: eventId %q is not latest, oldest or a 32-character hex event id", ErrInvalidInput, truncateForError(ref))
}

// truncateForError keeps echoed input short and free of hidden characters in error
// messages.
func truncateForError(s string) string {
	out, cut := mcpkit.CleanText(s, 60)
	if cut {
		out += "..."
	}
	return out
}
