package auth

import (
	"slices"
	"strings"
)

// missingScopes returns the needed scopes that granted does not cover.
func missingScopes(granted, needed []string, covers func(granted, needed string) bool) []string {
	var out []string
	for _, n := range needed {
		ok := slices.Contains(granted, n)
		if !ok && covers != nil {
			ok = slices.ContainsFunc(granted, func(g string) bool { return covers(g, n) })
		}
		if !ok && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// dedupe keeps the first occurrence of each string, in order.
func dedupe(in []string) []string {
	out := in[:0:0]
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func scopeList(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " ")
}
