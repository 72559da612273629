package github

import (
	"fmt"
	"strings"
	"unicode"
)

// The validators below run before any name reaches a URL. go-github pastes owner,
// repo, refs and (for writes) paths into request paths unescaped, so a repo named
// "x/../../other/repo" would otherwise walk out of the repository the allow-list
// approved. Rejecting such names is what makes the allow-list a check and not a hope.

// validateOwner checks a user or organization name: letters, digits, '-' and '_'
// (Enterprise Managed Users have "name_shortcode" logins), at most 39 characters.
func validateOwner(owner string) error {
	if owner == "" {
		return fmt.Errorf("owner is empty; expected the user or organization that owns the repository, e.g. octocat")
	}
	if len(owner) > 39 || strings.HasPrefix(owner, "-") {
		return fmt.Errorf("owner %q is not a GitHub user or organization name; expected letters, digits, '-' or '_' (at most 39, not starting with '-')", clip(owner))
	}
	for _, c := range owner {
		if !(c == '-' || c == '_' || isASCIIAlnum(c)) {
			return fmt.Errorf("owner %q is not a GitHub user or organization name; expected letters, digits, '-' or '_' (at most 39, not starting with '-')", clip(owner))
		}
	}
	return nil
}

// validateRepoName checks a repository name: letters, digits, '.', '-', '_', at most
// 100 characters, and never "." or "..".
func validateRepoName(repo string) error {
	if repo == "" {
		return fmt.Errorf("repo is empty; expected the repository name without the owner, e.g. hello-world")
	}
	if repo == "." || repo == ".." || len(repo) > 100 {
		return fmt.Errorf("repo %q is not a GitHub repository name; expected letters, digits, '.', '-' or '_' (at most 100)", clip(repo))
	}
	for _, c := range repo {
		if !(c == '-' || c == '_' || c == '.' || isASCIIAlnum(c)) {
			return fmt.Errorf("repo %q is not a GitHub repository name; expected letters, digits, '.', '-' or '_' (at most 100) and no owner prefix", clip(repo))
		}
	}
	return nil
}

// validateRef checks a branch, tag or commit SHA by git's own ref-name rules, plus
// '%', '#' and '?', which would change the meaning of the URL the ref is pasted into.
func validateRef(field, ref string) error {
	bad := func(why string) error {
		return fmt.Errorf("%s %q is not a valid git ref (%s); expected a branch, tag or commit SHA such as main, v1.2.0 or a 40-hex SHA", field, clip(ref), why)
	}
	switch {
	case ref == "":
		return fmt.Errorf("%s is empty; expected a branch, tag or commit SHA", field)
	case len(ref) > 255:
		return bad("longer than 255 bytes")
	case strings.Contains(ref, ".."):
		return bad(`contains ".."`)
	case strings.Contains(ref, "//"):
		return bad(`contains "//"`)
	case strings.Contains(ref, "@{"):
		return bad(`contains "@{"`)
	case strings.HasPrefix(ref, "/") || strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, "."):
		return bad("starts or ends with '/' or ends with '.'")
	case strings.HasPrefix(ref, "-"):
		return bad("starts with '-'")
	case strings.HasSuffix(ref, ".lock"):
		return bad(`ends with ".lock"`)
	}
	for _, part := range strings.Split(ref, "/") {
		if strings.HasPrefix(part, ".") {
			return bad("a component starts with '.'")
		}
	}
	for _, c := range ref {
		if c <= ' ' || c == 0x7f || strings.ContainsRune("~^:?*[\\%#", c) || !unicode.IsPrint(c) {
			return bad(fmt.Sprintf("contains %q", c))
		}
	}
	return nil
}

// validatePath checks a file or directory path inside a repository. "" is the root.
// It refuses "." and ".." segments, empty segments, backslashes and control
// characters; everything else is a legal file name and is escaped when sent.
func validatePath(p string) (string, error) {
	clean := strings.Trim(p, "/")
	if len(clean) > 4096 {
		return "", fmt.Errorf("path is longer than 4096 bytes; expected a path inside the repository such as src/main.go")
	}
	if clean == "" {
		return "", nil
	}
	for _, seg := range strings.Split(clean, "/") {
		switch seg {
		case "":
			return "", fmt.Errorf("path %q has an empty segment (\"//\"); expected a path such as src/main.go", clip(p))
		case ".", "..":
			return "", fmt.Errorf("path %q has a %q segment; paths are relative to the repository root and must not contain . or ..", clip(p), seg)
		}
	}
	for _, c := range clean {
		if c < ' ' || c == 0x7f || c == '\\' || !unicode.IsPrint(c) && c != ' ' {
			return "", fmt.Errorf("path %q contains the character %q, which is not allowed; expected a path such as src/main.go", clip(p), c)
		}
	}
	return clean, nil
}

// validateRepo checks both halves of owner/repo.
func validateRepo(owner, repo string) error {
	if err := validateOwner(owner); err != nil {
		return err
	}
	return validateRepoName(repo)
}

func isASCIIAlnum(c rune) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// clip keeps an echoed user value short and printable inside an error message.
func clip(s string) string {
	const max = 80
	var b strings.Builder
	for i, c := range s {
		if i >= max {
			b.WriteString("…")
			break
		}
		if !unicode.IsPrint(c) {
			fmt.Fprintf(&b, "\\u%04x", c)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}
