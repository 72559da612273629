package errorserver

import "strings"

// userLabelOrder is the order in which userData.label picks the field that names a
// user in the "user" tag (id:..., else email:..., else username:..., else ip:...).
var userLabelOrder = []string{"id", "email", "username", "ip"}

// userSQL is the condition of a user.id:, user.email:, user.username: or user.ip:
// term: the issue has an event whose user has that field matching (as Sentry
// searches them: the field, whatever else the user has).
//
// The "user" tag holds one field, the first of userLabelOrder the user has, so a
// tag lookup finds every user whose label is this field; a user with a field that
// comes first (an email of a user with an id) is found in the stored events' JSON,
// scanning only the events whose label is such a field (for user.id none: an id is
// always the label).
func (t *queryTerm) userSQL() (string, []any) {
	prefix := t.user + ":"
	tag := queryTerm{kind: termTag, key: "user"}
	for _, p := range t.patterns {
		tag.patterns = append(tag.patterns, globEscape(prefix)+p)
	}
	for _, v := range t.exact {
		tag.exact = append(tag.exact, prefix+v)
	}
	cond, args := tag.sql()
	var before []string
	for _, f := range userLabelOrder {
		if f == t.user {
			break
		}
		before = append(before, "e.user GLOB ?")
		args = append(args, f+":*")
	}
	if len(before) == 0 {
		return cond, args
	}
	match := make([]string, len(t.patterns))
	for i, p := range t.patterns {
		match[i] = "json_extract(e.body, '$.user." + t.user + "') GLOB ?"
		args = append(args, p)
	}
	return "(" + cond + " OR i.n IN (SELECT e.issue FROM events e WHERE (" + strings.Join(before, " OR ") + ") AND (" + strings.Join(match, " OR ") + ")))", args
}
