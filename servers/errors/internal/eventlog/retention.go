package eventlog

import "time"

// Reasons given in Dropped.Reason.
const (
	ReasonBytes = "over the byte limit"
	ReasonAge   = "older than the age limit"
)

// EnforceRetention applies the byte and age limits now. The log also applies them
// after every commit; call this periodically so that age limits act without traffic.
func (l *Log) EnforceRetention() {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.enforceRetentionLocked()
}

// enforceRetentionLocked drops the oldest segments while the log is over its byte
// limit or their newest record is older than the age limit. The active segment is
// never dropped while it is active; an idle one past the age limit is first closed
// by starting a new segment, so old events do not linger just because nothing new came.
func (l *Log) enforceRetentionLocked() {
	if l.failed != nil || len(l.segs) == 0 {
		return
	}
	var cutoff time.Time
	if l.opts.MaxAge > 0 {
		cutoff = l.opts.Now().Add(-l.opts.MaxAge)
		if act := l.active(); act.records > 0 && act.newest.Before(cutoff) {
			if err := l.addSegment(act.seq + 1); err != nil {
				l.failed = err
				l.logger.Error("event log: could not start a new segment for retention", "error", err.Error())
				return
			}
		}
	}
	for len(l.segs) > 1 {
		oldest := l.segs[0]
		var reason string
		switch {
		case l.opts.MaxTotalBytes > 0 && l.total > l.opts.MaxTotalBytes:
			reason = ReasonBytes
		case l.opts.MaxAge > 0 && oldest.newest.Before(cutoff):
			reason = ReasonAge
		default:
			return
		}
		l.dropLocked(oldest, reason)
	}
}

func (l *Log) dropLocked(s *segment, reason string) {
	l.segMu.Lock()
	l.segs = l.segs[1:]
	delete(l.bySeq, s.seq)
	l.segMu.Unlock()
	s.f.Close()
	l.total -= s.size
	if err := l.root.Remove(s.name); err != nil {
		l.logger.Error("event log: could not remove a dropped segment; it will be read again on restart",
			"segment", s.name, "error", err.Error())
	} else if err := l.syncDir(); err != nil {
		l.logger.Warn("event log: directory sync after a drop failed", "error", err.Error())
	}
	d := Dropped{Segment: s.seq, Records: s.records, Bytes: s.size, Oldest: s.oldest, Newest: s.newest, Reason: reason}
	l.logger.Info("event log: retention dropped the oldest segment",
		"segment", s.name, "records", d.Records, "bytes", d.Bytes, "reason", reason)
	if l.opts.OnDrop != nil {
		l.opts.OnDrop(d)
	}
}
