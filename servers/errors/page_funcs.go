package errorserver

import (
	"html/template"
	"strconv"
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
