package github

// codeTools: code search.
func codeTools() []toolEntry {
	return []toolEntry{
		read("code", "search_code", "Search code with GitHub search syntax.", (*Backend).SearchCode),
	}
}
