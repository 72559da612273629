package errorserver

import (
	"fmt"
	"html/template"
	"strconv"
	"time"

	"github.com/mcpkit/reference/servers/errors/backend"
)

// pageFuncs are the templates' functions. None returns template.HTML: every value
// the page shows is escaped by html/template in its context. The three links return
// template.URL, built from a fixed scheme and an escaped path (page_links.go).
var pageFuncs = template.FuncMap{
	"resourceLink": resourceLink,
	"fileLink":     fileLink,
	"editorLink":   editorLink,
	"ago":          ago,
	"comma":        comma,
	"percent":      percent,
	"chart":        chart,
	"deref":        func(b *bool) bool { return b != nil && *b },
	"isset":        func(b *bool) bool { return b != nil },
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// comma writes n with thousands separators: 100,000.
func comma(n int64) string {
	s := itoa(n)
	if n < 0 {
		return "-" + comma(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// percent is part of whole in whole percent, at least 1 when part is not 0.
func percent(part, whole int64) int64 {
	if whole <= 0 || part <= 0 {
		return 0
	}
	return max(1, part*100/whole)
}

// svgChart is a bar chart of event counts, drawn by the templates as inline SVG
// (elements and presentation attributes only: nothing a Content-Security-Policy
// without scripts or inline styles refuses).
type svgChart struct {
	Width, Height int // in viewBox units: 4 per bar
	Label         string
	Bars          []svgBar
}

type svgBar struct {
	X, Y, W, H int
	Title      string // the bucket's start and its count, shown on hover
}

// chartHeight is a chart's height in viewBox units.
const chartHeight = 32

// chart draws a series of hourly (or daily) counts; nil for none. Bars are scaled
// to the largest count; a bucket with events is at least one unit high.
func chart(s *backend.Series, hourly bool) *svgChart {
	if s == nil || len(s.Counts) == 0 {
		return nil
	}
	start, err := time.Parse(time.RFC3339, s.Start)
	if err != nil {
		return nil
	}
	step, layout, unit := 24*time.Hour, "2006-01-02", "day"
	if hourly {
		step, layout, unit = time.Hour, "2006-01-02 15:04", "hour"
	}
	var top, total int64
	for _, n := range s.Counts {
		top, total = max(top, n), total+n
	}
	c := &svgChart{Width: 4 * len(s.Counts), Height: chartHeight,
		Label: fmt.Sprintf("%s events, per %s, from %s (UTC)", comma(total), unit, start.Format(layout))}
	for i, n := range s.Counts {
		h := 0
		if top > 0 && n > 0 {
			h = max(1, int(n*chartHeight/top))
		}
		c.Bars = append(c.Bars, svgBar{X: 4 * i, Y: chartHeight - h, W: 3, H: h,
			Title: fmt.Sprintf("%s: %s", start.Add(time.Duration(i)*step).Format(layout), comma(n))})
	}
	return c
}
