package mcpkit

// clip bounds a value taken from a request before it goes into a log line.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
