// Package eventlog is an append-only record log kept in segment files under one
// directory. It exists so that the local error store can promise a Sentry SDK that an
// acknowledged event survives kill -9 and restart:
//
//   - Every record is framed as length + CRC-32C + timestamp + payload, so a torn or
//     damaged write is recognised on replay instead of being read as data.
//   - Append returns only after the record's segment was fsynced. Concurrent callers
//     share one fsync (group commit), so durability does not cost one disk flush per
//     request.
//   - Open replays every segment in order and truncates a torn tail of the last segment
//     (the only place a crash can leave one), keeping every earlier record.
//   - Retention drops whole segments, oldest first, when the log is over its byte budget
//     or a segment's newest record is older than the age limit, and reports each drop.
//
// The log knows nothing about events: payloads are opaque bytes.
package eventlog
