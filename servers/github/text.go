package github

import (
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// Size caps for text that comes from GitHub. Everything a user wrote is untrusted;
// the caps keep one long issue from eating a model's context.
const (
	maxTitleBytes   = 512
	maxBodyBytes    = 16 << 10
	maxCommentBytes = 8 << 10
	maxShortBytes   = 1 << 10
	maxNameBytes    = 256
)

var timeNow = time.Now

// name sanitizes a short identifier-like value (login, branch, label) without
// marking anything: such values are short by construction and capped only for safety.
func name(s string) string {
	out, _ := mcpkit.CleanText(s, maxNameBytes)
	return out
}

// firstLine returns the first line of a commit message, the part a list needs.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimRight(line, "\r")
}

func ts(t *gh.Timestamp) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func login(u *gh.User) string {
	if u == nil {
		return ""
	}
	return name(u.GetLogin())
}

func labelNames(ls []*gh.Label) []string {
	var out []string
	for _, l := range ls {
		out = append(out, name(l.GetName()))
	}
	return out
}

func logins(us []*gh.User) []string {
	var out []string
	for _, u := range us {
		out = append(out, login(u))
	}
	return out
}

func repoName(owner, repo string) string { return owner + "/" + repo }

func tsv(t gh.Timestamp) string { return ts(&t) }
