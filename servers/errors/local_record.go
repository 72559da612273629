package errorserver

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"
)

// A stored event is one eventlog record:
//
//	byte 0       record format version (1)
//	uvarint      length of the summary
//	summary      JSON: what the in-memory index needs (replay decodes only this)
//	detail       JSON: the whole normalised eventData, read back for get_event
//
// Replaying 100,000 events therefore parses a few hundred bytes each, not whole events.
const recordFormat = 1

// storedSummary is the indexed part of a stored event.
type storedSummary struct {
	ID        string    `json:"id"`
	Issue     string    `json:"issue"`
	Project   string    `json:"project"`
	Timestamp time.Time `json:"ts"`
	Title     string    `json:"title,omitempty"`
	Culprit   string    `json:"culprit,omitempty"`
	Type      string    `json:"type,omitempty"`
	Value     string    `json:"value,omitempty"`
	Level     string    `json:"level,omitempty"`
	Platform  string    `json:"platform,omitempty"`
	Message   string    `json:"message,omitempty"`
	// Tags are flattened key, value, key, value...: plain strings decode several
	// times faster than pair objects, and replay decodes this for every event.
	Tags []string `json:"tags,omitempty"`
}

// summaryMessageCap bounds the message kept in memory for list_issue_events.
const summaryMessageCap = 200

func summarize(e *eventData) storedSummary {
	s := storedSummary{
		ID: e.ID, Issue: e.IssueID, Project: e.Project, Timestamp: e.Timestamp,
		Title: e.Title, Culprit: e.Culprit, Level: e.Level, Platform: e.Platform,
	}
	for _, t := range e.Tags {
		s.Tags = append(s.Tags, t.Key, t.Value)
	}
	if n := len(e.Exceptions); n > 0 {
		s.Type = capped(e.Exceptions[n-1].Type, 256)
		s.Value = capped(firstLine(e.Exceptions[n-1].Value), summaryMessageCap)
	}
	s.Message = capped(firstLine(firstNonEmpty(e.Message, s.Value)), summaryMessageCap)
	return s
}

func encodeStoredEvent(e *eventData) ([]byte, error) {
	sum, err := json.Marshal(summarize(e))
	if err != nil {
		return nil, err
	}
	detail, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 1+binary.MaxVarintLen64+len(sum)+len(detail))
	out = append(out, recordFormat)
	out = binary.AppendUvarint(out, uint64(len(sum)))
	out = append(out, sum...)
	return append(out, detail...), nil
}

func splitStoredEvent(b []byte) (sum, detail []byte, err error) {
	if len(b) < 2 || b[0] != recordFormat {
		return nil, nil, fmt.Errorf("stored event has an unknown format")
	}
	n, k := binary.Uvarint(b[1:])
	if k <= 0 || n > uint64(len(b)-1-k) {
		return nil, nil, fmt.Errorf("stored event has a bad summary length")
	}
	start := 1 + k
	return b[start : start+int(n)], b[start+int(n):], nil
}

func decodeStoredSummary(b []byte) (*storedSummary, error) {
	sum, _, err := splitStoredEvent(b)
	if err != nil {
		return nil, err
	}
	var s storedSummary
	if err := json.Unmarshal(sum, &s); err != nil {
		return nil, fmt.Errorf("stored event summary: %w", err)
	}
	if s.ID == "" || s.Issue == "" || len(s.Tags)%2 != 0 {
		return nil, fmt.Errorf("stored event summary lacks an id or issue, or has an odd tag list")
	}
	return &s, nil
}

func decodeStoredDetail(b []byte) (*eventData, error) {
	_, detail, err := splitStoredEvent(b)
	if err != nil {
		return nil, err
	}
	var e eventData
	if err := json.Unmarshal(detail, &e); err != nil {
		return nil, fmt.Errorf("stored event: %w", err)
	}
	return &e, nil
}
