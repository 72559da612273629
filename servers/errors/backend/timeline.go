package backend

import "time"

// Timeline is an issue's events over time, in the two views "since when, and still
// rising?" needs: per hour over the last day, per day over the last month. Counts
// are oldest first, the current (partial) hour or day last; a series starts at the
// bucket of the first event when that is inside it (no run of zeros from
// before the issue existed), and the days are left out when the hours already
// reach back to the first event.
type Timeline struct {
	Hours *Series `json:"hours,omitempty" jsonschema_description:"Events per hour (UTC) over the last 24 hours, oldest first from start, the current hour last."`
	Days  *Series `json:"days,omitempty" jsonschema_description:"Events per day (UTC) over the last 30 days, oldest first from start, today last; absent when the issue is younger than the hours."`
}

// Series is event counts per bucket from Start, one bucket after another.
type Series struct {
	Start  string  `json:"start" jsonschema_description:"Start of the first bucket (RFC 3339)."`
	Counts []int64 `json:"counts" jsonschema_description:"Events per bucket, oldest first."`
}

// Point is a count of events in the bucket that starts at At.
type Point struct {
	At time.Time
	N  int64
}

// Timeline spans.
const (
	TimelineHours = 24
	TimelineDays  = 30
)

// TimelineBuckets returns the first hour and the first day the timeline at now
// covers: a backend reads its counts from there.
func TimelineBuckets(now time.Time) (firstHour, firstDay time.Time) {
	now = now.UTC()
	return now.Truncate(time.Hour).Add(-(TimelineHours - 1) * time.Hour), now.Truncate(24*time.Hour).AddDate(0, 0, -(TimelineDays - 1))
}

// MakeTimeline builds an issue's timeline at now from its hourly and daily counts
// (points outside the spans are ignored; a point inside a bucket counts in it, so
// buckets need not be aligned the same way).
func MakeTimeline(now, firstSeen time.Time, hours, days []Point) *Timeline {
	h0, d0 := TimelineBuckets(now)
	t := &Timeline{Hours: makeSeries(h0, time.Hour, TimelineHours, firstSeen, hours)}
	if !firstSeen.IsZero() && firstSeen.Before(h0) {
		t.Days = makeSeries(d0, 24*time.Hour, TimelineDays, firstSeen, days)
	}
	return t
}

func makeSeries(start time.Time, step time.Duration, n int, firstSeen time.Time, points []Point) *Series {
	counts := make([]int64, n)
	for _, p := range points {
		if i := int(p.At.Sub(start) / step); !p.At.Before(start) && i < n {
			counts[i] += p.N
		}
	}
	skip := 0
	for skip < n-1 && counts[skip] == 0 && !firstSeen.IsZero() && !start.Add(time.Duration(skip+1)*step).After(firstSeen) {
		skip++
	}
	return &Series{Start: FormatTime(start.Add(time.Duration(skip) * step)), Counts: counts[skip:]}
}
