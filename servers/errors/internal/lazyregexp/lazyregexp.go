package errorserver

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on first use instead of at package
// initialisation: compiling this package's expressions was most of the server's
// start-up work before main. It has the methods of *regexp.Regexp the package uses;
// every one is compiled by TestLazyRegexps, so a bad expression still fails at once.
type lazyRegexp struct {
	expr string
	re   func() *regexp.Regexp
}

// lazyRegexps lists every lazyRegexp, for the test.
var lazyRegexps []*lazyRegexp

func lazyMustCompile(expr string) *lazyRegexp {
	l := &lazyRegexp{expr: expr, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
	lazyRegexps = append(lazyRegexps, l)
	return l
}

func (l *lazyRegexp) MatchString(s string) bool { return l.re().MatchString(s) }
func (l *lazyRegexp) FindStringSubmatch(s string) []string {
	return l.re().FindStringSubmatch(s)
}
func (l *lazyRegexp) FindAllString(s string, n int) []string { return l.re().FindAllString(s, n) }
func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.re().FindAllStringSubmatch(s, n)
}
func (l *lazyRegexp) ReplaceAllString(src, repl string) string {
	return l.re().ReplaceAllString(src, repl)
}
func (l *lazyRegexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return l.re().ReplaceAllStringFunc(src, repl)
}
