// Package lazyregexp holds regular expressions compiled on first use. It owns nothing
// of the server and imports only the standard library; every package of the server
// may import it.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use instead of at package
// initialisation: compiling the server's expressions was most of the server's
// start-up work before main. It has the methods of *regexp.Regexp the server uses;
// every one is compiled by TestLazyRegexps, so a bad expression still fails at once.
type Regexp struct {
	expr string
	re   func() *regexp.Regexp
}

// lazyRegexps lists every Regexp, for Exprs.
var lazyRegexps []*Regexp

// New registers expr, to be compiled on its first use.
func New(expr string) *Regexp {
	l := &Regexp{expr: expr, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
	lazyRegexps = append(lazyRegexps, l)
	return l
}

func (l *Regexp) MatchString(s string) bool { return l.re().MatchString(s) }
func (l *Regexp) FindStringSubmatch(s string) []string {
	return l.re().FindStringSubmatch(s)
}
func (l *Regexp) FindAllString(s string, n int) []string { return l.re().FindAllString(s, n) }
func (l *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.re().FindAllStringSubmatch(s, n)
}
func (l *Regexp) ReplaceAllString(src, repl string) string {
	return l.re().ReplaceAllString(src, repl)
}
func (l *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return l.re().ReplaceAllStringFunc(src, repl)
}

// Exprs lists the expression of every Regexp made so far: TestLazyRegexps, in the
// package that links them all, compiles each one.
func Exprs() []string {
	out := make([]string, len(lazyRegexps))
	for i, l := range lazyRegexps {
		out[i] = l.expr
	}
	return out
}
