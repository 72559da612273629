package backend

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestMakeTimeline: counts land in their hour and day whatever the points'
// alignment, points outside the spans are ignored, a series starts at the issue's
// first bucket, and the days are left out for an issue younger than the hours.
func TestMakeTimeline(t *testing.T) {
	now := time.Date(2026, 5, 2, 12, 40, 0, 0, time.UTC)
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	old := MakeTimeline(now, at("2026-04-20T09:00:00Z"),
		[]Point{{at("2026-05-01T12:59:00Z"), 9}, {at("2026-05-01T13:00:00Z"), 1}, {at("2026-05-02T12:10:00Z"), 2}, {at("2026-05-02T12:20:00Z"), 3}, {at("2026-05-02T13:00:00Z"), 9}},
		[]Point{{at("2026-04-02T00:00:00Z"), 9}, {at("2026-04-20T00:00:00Z"), 4}, {at("2026-05-02T00:00:00Z"), 6}})
	hours := make([]int64, 24)
	hours[0], hours[23] = 1, 5
	days := make([]int64, 13)
	days[0], days[12] = 4, 6
	want := &Timeline{Hours: &Series{Start: "2026-05-01T13:00:00.000Z", Counts: hours}, Days: &Series{Start: "2026-04-20T00:00:00.000Z", Counts: days}}
	if diff := cmp.Diff(want, old); diff != "" {
		t.Errorf("an issue of twelve days (-want +got):\n%s", diff)
	}
	young := MakeTimeline(now, at("2026-05-02T09:30:00Z"), []Point{{at("2026-05-02T09:00:00Z"), 2}, {at("2026-05-02T11:00:00Z"), 1}}, []Point{{at("2026-05-02T00:00:00Z"), 3}})
	want = &Timeline{Hours: &Series{Start: "2026-05-02T09:00:00.000Z", Counts: []int64{2, 0, 1, 0}}}
	if diff := cmp.Diff(want, young); diff != "" {
		t.Errorf("an issue of three hours (-want +got):\n%s", diff)
	}
}
