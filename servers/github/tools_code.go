package github

// codeTools: code search.
func codeTools(b *Backend) []toolEntry {
	return []toolEntry{
		read(b, "code", "search_code", "Search code with GitHub search syntax.", (*Backend).SearchCode),
	}
}
