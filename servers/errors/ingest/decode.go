package ingest

import (
	"github.com/mcpkit/reference/servers/errors/event"
)

// decodeSDKEvent is the fast way from an event payload to an sdkEvent: one pass over
// the bytes, decoding only the fields the store keeps and skipping the rest (sentry-go
// sends large modules and sdk objects), with the strings that need no unescaping
// taken as substrings of one copy of the payload instead of one allocation each. The
// reflective decoder (segmentio's, calling the flex types' UnmarshalJSON for every
// field) spent most of an event's CPU here.
//
// It accepts a subset of what the reflective decoder accepts, and decodes that subset
// to the same sdkEvent: whenever the payload is anything it is not sure about (a
// syntax error, a field of an unexpected shape, a key that would match a field only
// case-insensitively, a field given twice, invalid UTF-8, a lone surrogate, very deep
// nesting) it reports !ok and parseSDKEvent decodes the payload the reflective way,
// which also words the error for a bad payload. FuzzDecodeSDKEvent checks the two
// agree.
func decodeSDKEvent(payload []byte) (ev *sdkEvent, ok bool) {
	d := newSDKDecoder(payload)
	defer func() {
		if r := recover(); r != nil {
			if _, bail := r.(decodeBail); !bail {
				panic(r)
			}
			ev, ok = nil, false
		}
	}()
	ev = new(sdkEvent)
	if d.next() != '{' {
		d.bail()
	}
	d.event(ev)
	d.ws()
	if d.i != len(d.s) {
		d.bail()
	}
	return ev, true
}

// The field readers below mirror the sdk* types' json tags; each bails on a field
// given twice and on a key that differs from a field's name only in case (the names
// unknown compares with are the tags themselves).
var (
	eventFields      = jsonFieldNames[sdkEvent]()
	sdkFields        = jsonFieldNames[sdkInfo]()
	logEntryFields   = jsonFieldNames[sdkLogEntry]()
	userFields       = jsonFieldNames[sdkUser]()
	requestFields    = jsonFieldNames[sdkRequest]()
	mechanismFields  = jsonFieldNames[sdkMechanism]()
	exceptionFields  = jsonFieldNames[sdkException]()
	threadFields     = jsonFieldNames[sdkThread]()
	stacktraceFields = jsonFieldNames[sdkStacktrace]()
	frameFields      = jsonFieldNames[sdkFrame]()
	breadcrumbFields = jsonFieldNames[event.SDKBreadcrumb]()
)

func (d *sdkDecoder) event(e *sdkEvent) {
	d.enter('{')
	var seen uint32
	for n := 0; d.more('}', n); n++ {
		switch k := d.key(); k {
		case "event_id":
			d.once(&seen, 0)
			e.EventID = d.flexString()
		case "timestamp":
			d.once(&seen, 1)
			e.Timestamp = event.FlexTimeOf(d.raw())
		case "level":
			d.once(&seen, 2)
			e.Level = d.flexString()
		case "platform":
			d.once(&seen, 3)
			e.Platform = d.flexString()
		case "logger":
			d.once(&seen, 4)
			e.Logger = d.flexString()
		case "transaction":
			d.once(&seen, 5)
			e.Transaction = d.flexString()
		case "culprit":
			d.once(&seen, 6)
			e.Culprit = d.flexString()
		case "server_name":
			d.once(&seen, 7)
			e.ServerName = d.flexString()
		case "release":
			d.once(&seen, 8)
			e.Release = d.flexString()
		case "dist":
			d.once(&seen, 9)
			e.Dist = d.flexString()
		case "environment":
			d.once(&seen, 10)
			e.Environment = d.flexString()
		case "type":
			d.once(&seen, 11)
			e.Type = d.flexString()
		case "message":
			d.once(&seen, 12)
			e.Message = []byte(d.raw())
		case "logentry":
			d.once(&seen, 13)
			e.LogEntry = ptr(d, (*sdkDecoder).logEntry)
		case "tags":
			d.once(&seen, 14)
			e.Tags = d.pairs()
		case "extra":
			d.once(&seen, 15)
			e.Extra = d.object()
		case "contexts":
			d.once(&seen, 16)
			e.Contexts = d.object()
		case "user":
			d.once(&seen, 17)
			e.User = ptr(d, (*sdkDecoder).user)
		case "request":
			d.once(&seen, 18)
			e.Request = ptr(d, (*sdkDecoder).request)
		case "exception":
			d.once(&seen, 19)
			e.Exception = values(d, (*sdkDecoder).exception)
		case "threads":
			d.once(&seen, 20)
			e.Threads = values(d, (*sdkDecoder).thread)
		case "stacktrace":
			d.once(&seen, 21)
			e.Stacktrace = ptr(d, (*sdkDecoder).stacktrace)
		case "breadcrumbs":
			d.once(&seen, 22)
			e.Breadcrumbs = values(d, (*sdkDecoder).breadcrumb)
		case "fingerprint":
			d.once(&seen, 23)
			e.Fingerprint = d.flexStrings()
		case "sdk":
			d.once(&seen, 24)
			e.SDK = ptr(d, (*sdkDecoder).sdk)
		default:
			d.unknown(k, eventFields)
		}
	}
}

func (d *sdkDecoder) sdk(s *sdkInfo) {
	d.enter('{')
	var seen uint32
	for n := 0; d.more('}', n); n++ {
		switch k := d.key(); k {
		case "name":
			d.once(&seen, 0)
			s.Name = d.flexString()
		case "version":
			d.once(&seen, 1)
			s.Version = d.flexString()
		default:
			d.unknown(k, sdkFields)
		}
	}
}

func (d *sdkDecoder) logEntry(l *sdkLogEntry) {
	d.enter('{')
	var seen uint32
	for n := 0; d.more('}', n); n++ {
		switch k := d.key(); k {
		case "message":
			d.once(&seen, 0)
			l.Message = d.flexString()
		case "formatted":
			d.once(&seen, 1)
			l.Formatted = d.flexString()
		default:
			d.unknown(k, logEntryFields)
		}
	}
}

func (d *sdkDecoder) user(u *sdkUser) {
	d.enter('{')
	var seen uint32
	for n := 0; d.more('}', n); n++ {
		switch k := d.key(); k {
		case "id":
			d.once(&seen, 0)
			u.ID = d.flexString()
		case "username":
			d.once(&seen, 1)
			u.Username = d.flexString()
		case "email":
			d.once(&seen, 2)
			u.Email = d.flexString()
		case "ip_address":
			d.once(&seen, 3)
			u.IPAddress = d.flexString()
		default:
			d.unknown(k, userFields)
		}
	}
}

func (d *sdkDecoder) request(r *sdkRequest) {
	d.enter('{')
	var seen uint32
	for n := 0; d.more('}', n); n++ {
		switch k := d.key(); k {
		case "url":
			d.once(&seen, 0)
			r.URL = d.flexString()
		case "method":
			d.once(&seen, 1)
			r.Method = d.flexString()
		case "data":
			d.once(&seen, 2)
			r.Data = d.value()
		case "query_string":
			d.once(&seen, 3)
			r.QueryString = []byte(d.raw())
		case "headers":
			d.once(&seen, 4)
			r.Headers = d.pairs()
		default:
			d.unknown(k, requestFields)
		}
	}
}

func (d *sdkDecoder) mechanism(m *sdkMechanism) {
	d.enter('{')
	var seen uint32
	for n := 0; d.more('}', n); n++ {
		switch k := d.key(); k {
		case "type":
			d.once(&seen, 0)
			m.Type = d.flexString()
		case "handled":
			d.once(&seen, 1)
			m.Handled = event.FlexBoolOf(d.raw())
		default:
			d.unknown(k, mechanismFields)
		}
	}
}

func (d *sdkDecoder) exception(x *sdkException) {
	d.enter('{')
	var seen uint32
	for n := 0; d.more('}', n); n++ {
		switch k := d.key(); k {
		case "type":
			d.once(&seen, 0)
			x.Type = d.flexString()
		case "value":
			d.once(&seen, 1)
			x.Value = d.flexString()
		case "module":
			d.once(&seen, 2)
			x.Module = d.flexString()
		case "mechanism":
			d.once(&seen, 3)
			x.Mechanism = ptr(d, (*sdkDecoder).mechanism)
		case "stacktrace":
			d.once(&seen, 4)
			x.Stacktrace = ptr(d, (*sdkDecoder).stacktrace)
		default:
			d.unknown(k, exceptionFields)
		}
	}
}

func (d *sdkDecoder) thread(t *sdkThread) {
	d.enter('{')
	var seen uint32
	for n := 0; d.more('}', n); n++ {
		switch k := d.key(); k {
		case "crashed":
			d.once(&seen, 0)
			t.Crashed = event.FlexBoolOf(d.raw())
		case "current":
			d.once(&seen, 1)
			t.Current = event.FlexBoolOf(d.raw())
		case "stacktrace":
			d.once(&seen, 2)
			t.Stacktrace = ptr(d, (*sdkDecoder).stacktrace)
		default:
			d.unknown(k, threadFields)
		}
	}
}

func (d *sdkDecoder) stacktrace(s *sdkStacktrace) {
	d.enter('{')
	var seen uint32
	for n := 0; d.more('}', n); n++ {
		switch k := d.key(); k {
		case "frames":
			d.once(&seen, 0)
			s.Frames = list(d, (*sdkDecoder).frame)
		default:
			d.unknown(k, stacktraceFields)
		}
	}
}

func (d *sdkDecoder) frame(f *sdkFrame) {
	d.enter('{')
	var seen uint32
	for n := 0; d.more('}', n); n++ {
		switch k := d.key(); k {
		case "function":
			d.once(&seen, 0)
			f.Function = d.flexString()
		case "module":
			d.once(&seen, 1)
			f.Module = d.flexString()
		case "package":
			d.once(&seen, 2)
			f.Package = d.flexString()
		case "filename":
			d.once(&seen, 3)
			f.Filename = d.flexString()
		case "abs_path":
			d.once(&seen, 4)
			f.AbsPath = d.flexString()
		case "lineno":
			d.once(&seen, 5)
			f.Lineno = event.FlexIntOf(d.raw())
		case "colno":
			d.once(&seen, 6)
			f.Colno = event.FlexIntOf(d.raw())
		case "pre_context":
			d.once(&seen, 7)
			f.PreContext = d.flexStrings()
		case "context_line":
			d.once(&seen, 8)
			if d.null() {
				f.ContextLine = nil
			} else {
				s := d.flexString()
				f.ContextLine = &s
			}
		case "post_context":
			d.once(&seen, 9)
			f.PostContext = d.flexStrings()
		case "in_app":
			d.once(&seen, 10)
			f.InApp = event.FlexBoolOf(d.raw())
		case "vars":
			d.once(&seen, 11)
			f.Vars = d.object()
		default:
			d.unknown(k, frameFields)
		}
	}
}

func (d *sdkDecoder) breadcrumb(b *event.SDKBreadcrumb) {
	d.enter('{')
	var seen uint32
	for n := 0; d.more('}', n); n++ {
		switch k := d.key(); k {
		case "timestamp":
			d.once(&seen, 0)
			b.Timestamp = event.FlexTimeOf(d.raw())
		case "type":
			d.once(&seen, 1)
			b.Type = d.flexString()
		case "category":
			d.once(&seen, 2)
			b.Category = d.flexString()
		case "level":
			d.once(&seen, 3)
			b.Level = d.flexString()
		case "message":
			d.once(&seen, 4)
			b.Message = d.flexString()
		case "data":
			d.once(&seen, 5)
			b.Data = d.object()
		default:
			d.unknown(k, breadcrumbFields)
		}
	}
}
