package ingest

import (
	"log/slog"
	"sync"
	"time"
)

// refusalLog rate-limits the warn lines for refused envelopes: a misconfigured SDK
// (a wrong DSN key, say) sends every event it has, and one line per event would bury
// everything else. At most RefusalBurst lines are written per RefusalWindow; the
// first line of the next window says how many were left out.
type refusalLog struct {
	mu         sync.Mutex
	window     time.Time
	written    int
	suppressed int
}

// RefusalBurst lines at most are written per RefusalWindow.
const (
	RefusalBurst  = 10
	RefusalWindow = time.Minute
)

// warn logs one refused envelope: the project it named (clipped: it comes from the
// URL), the HTTP status and the reason sent back to the SDK. Never the payload.
func (l *refusalLog) warn(logger *slog.Logger, now time.Time, project string, status int, detail string) {
	l.mu.Lock()
	if now.Sub(l.window) >= RefusalWindow {
		l.window, l.written = now, 0
	}
	if l.written >= RefusalBurst {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	l.written++
	suppressed := l.suppressed
	l.suppressed = 0
	l.mu.Unlock()
	if len(project) > 64 {
		project = project[:64] + "…"
	}
	attrs := []any{"project", project, "status", status, "reason", detail}
	if suppressed > 0 {
		attrs = append(attrs, "suppressed", suppressed)
	}
	logger.Warn("ingest: envelope refused", attrs...)
}
