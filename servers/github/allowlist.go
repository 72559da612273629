package github

import (
	"fmt"
	"sort"
	"strings"
)

// AllowList is the --repos value: the repositories this server may touch. A nil
// *AllowList allows every repository the token can see.
//
// Entries are "owner/name" (one repository) or "owner/*" (every repository of an
// owner). Matching is case-insensitive, as GitHub's names are.
type AllowList struct {
	repos   map[string]bool // "owner/name", lower case
	owners  map[string]bool // "owner", lower case, for owner/*
	entries []string        // as given, for messages
}

// ParseAllowList parses a comma-separated list such as "octo/hello,acme/*".
// Blank entries are ignored; an empty string is an error, because a server started
// with --repos "" most likely meant to confine itself and would otherwise allow all.
func ParseAllowList(s string) (*AllowList, error) {
	a := &AllowList{repos: map[string]bool{}, owners: map[string]bool{}}
	for _, raw := range strings.Split(s, ",") {
		entry := strings.TrimSpace(raw)
		if entry == "" {
			continue
		}
		owner, name, ok := strings.Cut(entry, "/")
		if !ok {
			return nil, fmt.Errorf("--repos entry %q has no '/'; expected owner/name or owner/*", clip(entry))
		}
		if err := validateOwner(owner); err != nil {
			return nil, fmt.Errorf("--repos entry %q: %v", clip(entry), err)
		}
		if name == "*" {
			a.owners[strings.ToLower(owner)] = true
		} else {
			if strings.Contains(name, "*") {
				return nil, fmt.Errorf("--repos entry %q: only a whole-name wildcard is supported; expected owner/name or owner/*", clip(entry))
			}
			if err := validateRepoName(name); err != nil {
				return nil, fmt.Errorf("--repos entry %q: %v", clip(entry), err)
			}
			a.repos[strings.ToLower(owner+"/"+name)] = true
		}
		a.entries = append(a.entries, entry)
	}
	if len(a.entries) == 0 {
		return nil, fmt.Errorf("--repos is empty; expected a comma-separated list such as octo/hello,acme/* (omit the flag to allow every repository)")
	}
	sort.Strings(a.entries)
	return a, nil
}

// Allowed reports whether owner/repo may be read or written. A nil list allows all.
func (a *AllowList) Allowed(owner, repo string) bool {
	if a == nil {
		return true
	}
	if validateRepo(owner, repo) != nil {
		return false
	}
	o := strings.ToLower(owner)
	return a.owners[o] || a.repos[o+"/"+strings.ToLower(repo)]
}

// String lists the entries, sorted, comma-separated.
func (a *AllowList) String() string {
	if a == nil {
		return "*"
	}
	return strings.Join(a.entries, ",")
}

// check returns the error every backend operation gives for a repository outside the
// list, before any request is sent.
func (a *AllowList) check(owner, repo string) error {
	if err := validateRepo(owner, repo); err != nil {
		return err
	}
	if !a.Allowed(owner, repo) {
		return &NotAllowedError{Owner: owner, Repo: repo, Allowed: a.String()}
	}
	return nil
}

// NotAllowedError is returned when an operation names a repository outside --repos.
type NotAllowedError struct {
	Owner, Repo string
	Allowed     string
}

func (e *NotAllowedError) Error() string {
	return fmt.Sprintf("repository %s/%s is not in this server's allow-list (--repos %s); only those repositories can be read or written", e.Owner, e.Repo, e.Allowed)
}
