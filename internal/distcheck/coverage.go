package distcheck

import "strings"

// MissingHosts lists the host and mode pairs that no launch of the server covers,
// as "Cursor: container, remote".
func MissingHosts(launches []Launch, server string) []string {
	have := map[Host]map[Mode]bool{}
	for _, l := range launches {
		if l.Host == "" || (l.Mode != Remote && l.Server != server) {
			continue
		}
		if have[l.Host] == nil {
			have[l.Host] = map[Mode]bool{}
		}
		have[l.Host][l.Mode] = true
	}
	var missing []string
	for _, h := range RequiredHosts {
		var modes []string
		for _, m := range RequiredModes {
			if !have[h][m] {
				modes = append(modes, string(m))
			}
		}
		if len(modes) > 0 {
			missing = append(missing, string(h)+": "+strings.Join(modes, ", "))
		}
	}
	return missing
}
