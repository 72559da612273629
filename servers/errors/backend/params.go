package backend

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/reference/servers/errors/internal/lazyregexp"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// DefaultStatsPeriod is the search window when none is given (Sentry's UI default).
const DefaultStatsPeriod = "14d"

// TimeWindow is a validated search window. Period is a relative window in one unit,
// as Sentry's statsPeriod takes it (so the Sentry backend can pass it on), and empty
// for an absolute window.
type TimeWindow struct {
	Period     string
	Start, End time.Time
}

// periodPattern is a period: one or more groups of a number and a unit s, m, h, d or w,
// such as 24h, 90m, 6h30m, 3d or 1w2d.
var (
	periodPattern = lazyregexp.New(`^(?:[0-9]{1,9}[smhdw])+$`)
	periodPart    = lazyregexp.New(`([0-9]+)([smhdw])`)
)

var periodUnits = map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}

// maxPeriod bounds a period: ten years.
const maxPeriod = 10 * 365 * 24 * time.Hour

// ParsePeriod parses a statsPeriod (and the -24h of firstSeen:-24h): one or more groups
// of a number and a unit s, m, h, d or w, such as 24h, 90m, 6h30m or 3d.
func ParsePeriod(p string) (time.Duration, error) {
	if !periodPattern.MatchString(p) {
		return 0, fmt.Errorf("%w: statsPeriod %q is not a period: give numbers with units s, m, h, d or w, such as 90m, 6h30m, 24h or 3d", ErrInvalidInput, p)
	}
	var d time.Duration
	for _, m := range periodPart.FindAllStringSubmatch(p, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		unit := periodUnits[m[2]]
		if n > int64(maxPeriod/unit) {
			return 0, fmt.Errorf("%w: statsPeriod %q is longer than ten years", ErrInvalidInput, p)
		}
		d += time.Duration(n) * unit
	}
	if d == 0 {
		return 0, fmt.Errorf("%w: statsPeriod %q is empty: give a positive period such as 24h", ErrInvalidInput, p)
	}
	if d > maxPeriod {
		return 0, fmt.Errorf("%w: statsPeriod %q is longer than ten years", ErrInvalidInput, p)
	}
	return d, nil
}

// singleUnitPeriod writes d in the largest of d, h, m, s that divides it (6h30m is
// 390m, 2w is 14d): Sentry's statsPeriod takes one number and one unit.
func singleUnitPeriod(d time.Duration) string {
	for _, u := range []string{"d", "h", "m"} {
		if d%periodUnits[u] == 0 {
			return strconv.FormatInt(int64(d/periodUnits[u]), 10) + u
		}
	}
	return strconv.FormatInt(int64(d/time.Second), 10) + "s"
}

// ParseInstant accepts RFC 3339 with or without a zone (UTC assumed) and a bare date.
func ParseInstant(name, s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: %s %q is not a time: give RFC 3339 such as 2026-05-01T00:00:00Z or a date such as 2026-05-01", ErrInvalidInput, name, s)
}

// ResolveWindow validates statsPeriod versus start/end and returns the window:
// statsPeriod is the period ending now (DefaultStatsPeriod when nothing is given);
// start alone runs until now; start and end are an absolute window.
func ResolveWindow(period, start, end string, now time.Time) (TimeWindow, error) {
	period, start, end = strings.TrimSpace(period), strings.TrimSpace(start), strings.TrimSpace(end)
	if period != "" && (start != "" || end != "") {
		return TimeWindow{}, fmt.Errorf("%w: give statsPeriod, or start (and optionally end), not both", ErrInvalidInput)
	}
	if end != "" && start == "" {
		return TimeWindow{}, fmt.Errorf("%w: end needs start: give start (alone it means until now) or statsPeriod such as 24h", ErrInvalidInput)
	}
	if start != "" {
		s, err := ParseInstant("start", start)
		if err != nil {
			return TimeWindow{}, err
		}
		e := now
		if end != "" {
			if e, err = ParseInstant("end", end); err != nil {
				return TimeWindow{}, err
			}
			if !e.After(s) {
				return TimeWindow{}, fmt.Errorf("%w: end %s is not after start %s", ErrInvalidInput, end, start)
			}
		} else if !now.After(s) {
			return TimeWindow{}, fmt.Errorf("%w: start %s is not before now (%s): give an earlier start, or an end too", ErrInvalidInput, start, FormatTime(now))
		}
		return TimeWindow{Start: s, End: e}, nil
	}
	if period == "" {
		period = DefaultStatsPeriod
	}
	d, err := ParsePeriod(period)
	if err != nil {
		return TimeWindow{}, err
	}
	if len(periodPart.FindAllString(period, -1)) > 1 {
		period = singleUnitPeriod(d)
	}
	return TimeWindow{Period: period, Start: now.Add(-d), End: now}, nil
}

// ResolveLimit applies the default and checks the range of a page size.
func ResolveLimit(n int) (int, error) {
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

func ResolveSort(s string) (string, error) {
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

var idPattern = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$`)

// CheckID validates an issue id, short id, project slug or organization slug: these
// become URL path segments, so anything else is refused before a request is built.
func CheckID(name, id string) error {
	if id == "" {
		return fmt.Errorf("%w: %s is required", ErrInvalidInput, name)
	}
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%w: %s %q is not an id: use letters, digits, '-', '_' and '.' as list results show them", ErrInvalidInput, name, TruncateForError(id))
	}
	return nil
}

var EventIDPattern = lazyregexp.New(`^[0-9a-fA-F]{32}$`)

// NormalizeEventRef accepts latest, oldest, recommended (as latest) or an event id
// with or without dashes, and returns latest, oldest or 32 lower-case hex digits.
func NormalizeEventRef(ref string) (string, error) {
	switch r := strings.ToLower(strings.TrimSpace(ref)); r {
	case "", "latest", "recommended":
		return "latest", nil
	case "oldest":
		return "oldest", nil
	default:
		id := strings.ReplaceAll(r, "-", "")
		if EventIDPattern.MatchString(id) {
			return id, nil
		}
	}
	return "", fmt.Errorf("%w: eventId %q is not latest, oldest or a 32-character hex event id", ErrInvalidInput, TruncateForError(ref))
}

// TruncateForError keeps echoed input short and free of hidden characters in error
// messages.
func TruncateForError(s string) string {
	out, cut := mcpkit.CleanText(s, 60)
	if cut {
		out += "..."
	}
	return out
}
