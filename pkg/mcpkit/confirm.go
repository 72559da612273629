package mcpkit

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrNotConfirmed starts the error of every Confirm that did not get the user's yes:
// nothing was changed.
var ErrNotConfirmed = errors.New("nothing was changed")

// confirmSchema is the form the user answers: one required checkbox.
var confirmSchema = map[string]any{
	"type":     "object",
	"required": []string{"confirm"},
	"properties": map[string]any{
		"confirm": map[string]any{"type": "boolean", "title": "Confirm", "description": "Check to do exactly what is shown"},
	},
}

// Confirm asks the user to confirm what message describes, through elicitation (a
// form with one required checkbox), and returns nil only when they accept with the box
// checked. Every server here confirms its writes through it, so the answers are
// handled one way everywhere:
//
//   - accept with confirm checked: nil, and the caller does what it showed;
//   - decline, cancel, an unchecked box or any other answer: an error wrapping
//     ErrNotConfirmed that says which ("nothing was changed: the user declined"),
//     which a tool handler returns as its isError result;
//   - a client that did not declare form elicitation: the protocol's
//     missing-capability error (-32021) with requiredCapabilities, saying that nothing
//     was changed and what to do;
//   - on 2026-07-28, while the answer is not known yet: ErrInputRequired, which the
//     handler returns unchanged (mcpkit answers input_required and runs the handler
//     again with the answer), so everything before Confirm must be free of side
//     effects.
//
// Characters that would not show on screen are made visible in message (\u{200B}),
// with a warning saying how many there were: the user confirms what will happen, not
// what it renders as.
//
// On 2026-07-28 the answer is bound to what was shown: the handler runs again with
// the answer and calls Confirm with the message and bind values it computes now; if
// they differ from those the user saw (the file was changed meanwhile, say), the
// answer is not taken and nothing is changed. Put into bind what the action depends
// on that the message does not show in full, such as the content hash of a file to be
// replaced: a confirmation replayed after the change it confirmed (on any instance)
// then finds its precondition gone. The requestState itself is good for one retry
// (ServerOptions.ReplayGuard).
//
// With ServerOptions.NoConfirm, Confirm returns nil without asking: for unattended
// agents whose host already confirms each call. key names the question; it must be
// stable across rounds.
func (r *Request) Confirm(ctx context.Context, key, message string, bind ...string) error {
	if r.server != nil && r.server.opts.NoConfirm {
		return nil
	}
	if !r.Meta.ClientCapabilities.HasElicitation("form") {
		return &Error{Code: CodeMissingClientCapability,
			Message: "nothing was changed: this action needs the user's confirmation, which is asked through elicitation (form mode), and the client did not declare that capability; " +
				"use a client that supports elicitation, or, for an unattended agent whose host already confirms each tool call, start the server with --no-confirm",
			Data: map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{}}}}
	}
	shown, hiddenN := ShowHidden(message)
	if hiddenN > 0 {
		shown += fmt.Sprintf("\n\nWARNING: the text above contains %d invisible or control character(s), shown as \\u{…}.", hiddenN)
	}
	digest := confirmDigest(shown, bind)
	if r.Modern() {
		if _, answered := r.known(key); answered && r.boundTo(key) != digest {
			return fmt.Errorf("%w: what the user was asked to confirm has changed since they were asked (it was changed meanwhile, or this confirmation was already carried out); call the tool again to be asked about it as it is now", ErrNotConfirmed)
		}
	}
	res, err := r.Elicit(ctx, key, ElicitParams{Message: shown, RequestedSchema: confirmSchema})
	if errors.Is(err, ErrInputRequired) {
		r.bindConfirmation(key, digest)
	}
	if err != nil {
		return err
	}
	switch {
	case res.Action == "decline":
		return fmt.Errorf("%w: the user declined", ErrNotConfirmed)
	case res.Action == "cancel":
		return fmt.Errorf("%w: the user dismissed the confirmation", ErrNotConfirmed)
	case res.Action != "accept":
		return fmt.Errorf("%w: the confirmation answer %q is not accept", ErrNotConfirmed, clip(SanitizeText(res.Action)))
	}
	if ok, _ := res.Content["confirm"].(bool); !ok {
		return fmt.Errorf("%w: the user did not check confirm", ErrNotConfirmed)
	}
	return nil
}

// confirmDigest binds a confirmation to the text shown and the values bound.
func confirmDigest(shown string, bind []string) string {
	h := sha256.New()
	h.Write([]byte(shown))
	for _, b := range bind {
		h.Write([]byte{0})
		h.Write([]byte(b))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

func (r *Request) boundTo(key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bound[key]
}

func (r *Request) bindConfirmation(key, digest string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.newBound == nil {
		r.newBound = map[string]string{}
	}
	r.newBound[key] = digest
}

// ShowHidden returns s with every character that would not show on screen
// (zero-width and bidirectional controls, control characters other than tab, newline
// and CR LF, invalid UTF-8) written as a visible \u{XXXX} (or \x{XX}) escape, and how
// many there were: text a user confirms must show what will happen, not what it
// renders as. A bare CR counts, as it can make a terminal overwrite what came before.
func ShowHidden(s string) (string, int) {
	if SanitizeText(s) == s && !strings.ContainsRune(s, '\r') {
		return s, 0
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		chunk := s[i : i+size]
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "\\x{%02X}", chunk[0])
			n++
		case r == '\r' && strings.HasPrefix(s[i:], "\n"):
			b.WriteString(chunk)
		case r == '\r' || (r != '\t' && r != '\n' && hidden(r)):
			fmt.Fprintf(&b, "\\u{%04X}", r)
			n++
		default:
			b.WriteString(chunk)
		}
	}
	return b.String(), n
}
