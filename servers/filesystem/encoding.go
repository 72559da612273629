package filesystem

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// textEncoding is how a text file's bytes map to characters. Files are decoded to
// UTF-8 for the model and written back in the encoding they had.
type textEncoding int

const (
	encUTF8 textEncoding = iota
	encUTF8BOM
	encUTF16LE
	encUTF16BE
	// encLatin1 is ISO-8859-1: every byte is one character, so any file that is not
	// valid UTF-8 and not binary decodes losslessly and encodes back byte for byte.
	encLatin1
)

func (e textEncoding) String() string {
	switch e {
	case encUTF8BOM:
		return "utf-8-bom"
	case encUTF16LE:
		return "utf-16le"
	case encUTF16BE:
		return "utf-16be"
	case encLatin1:
		return "latin-1"
	}
	return "utf-8"
}

func (e textEncoding) bom() []byte {
	switch e {
	case encUTF8BOM:
		return []byte{0xEF, 0xBB, 0xBF}
	case encUTF16LE:
		return []byte{0xFF, 0xFE}
	case encUTF16BE:
		return []byte{0xFE, 0xFF}
	}
	return nil
}

// unit is the size in bytes of one code unit; line breaks are found on unit boundaries.
func (e textEncoding) unit() int {
	if e == encUTF16LE || e == encUTF16BE {
		return 2
	}
	return 1
}

// isNewline reports whether the code unit at b[0:unit] is a line feed.
func (e textEncoding) isNewline(b []byte) bool {
	switch e {
	case encUTF16LE:
		return b[0] == '\n' && b[1] == 0
	case encUTF16BE:
		return b[0] == 0 && b[1] == '\n'
	}
	return b[0] == '\n'
}

// sniffSize is how much of a file's start decides its encoding.
const sniffSize = 64 << 10

// binarySniffSize is the prefix in which a NUL byte marks a file as binary (as git and
// grep do).
const binarySniffSize = 8 << 10

// sniffResult is what the start of a file says about its encoding.
type sniffResult struct {
	enc       textEncoding
	invalidAt int  // first byte that is not valid UTF-8, or -1
	binary    bool // NUL bytes or mostly control characters: not text
}

// sniffEncoding decides the encoding from the first bytes of a file. A BOM decides
// outright. Otherwise NUL bytes in the first 8 KiB mean binary; valid UTF-8 means UTF-8
// (a character cut by the end of the sample is not counted as invalid unless atEOF);
// anything else is Latin-1 unless control characters make it look binary.
func sniffEncoding(sample []byte, atEOF bool) sniffResult {
	switch {
	case bytes.HasPrefix(sample, encUTF8BOM.bom()):
		return sniffResult{enc: encUTF8BOM, invalidAt: -1}
	case bytes.HasPrefix(sample, encUTF16LE.bom()):
		return sniffResult{enc: encUTF16LE, invalidAt: -1}
	case bytes.HasPrefix(sample, encUTF16BE.bom()):
		return sniffResult{enc: encUTF16BE, invalidAt: -1}
	}
	head := sample
	if len(head) > binarySniffSize {
		head = head[:binarySniffSize]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return sniffResult{enc: encUTF8, invalidAt: firstInvalidUTF8(sample, atEOF), binary: true}
	}
	bad := firstInvalidUTF8(sample, atEOF)
	if bad < 0 {
		return sniffResult{enc: encUTF8, invalidAt: -1}
	}
	controls := 0
	for _, c := range sample {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b {
			controls++
		}
	}
	if controls*20 > len(sample) { // over 5% control bytes: not text in any 8-bit code page
		return sniffResult{enc: encLatin1, invalidAt: bad, binary: true}
	}
	return sniffResult{enc: encLatin1, invalidAt: bad}
}

// firstInvalidUTF8 returns the offset of the first byte that does not start a valid
// UTF-8 sequence, or -1. An incomplete sequence at the very end counts only atEOF.
func firstInvalidUTF8(b []byte, atEOF bool) int {
	if utf8.Valid(b) { // the usual case, checked word by word
		return -1
	}
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			if !atEOF && len(b)-i < utf8.UTFMax && !utf8.FullRune(b[i:]) {
				return -1
			}
			return i
		}
		i += size
	}
	return -1
}

// describeNotText is the message for a file that cannot be shown as text.
func describeNotText(display string, s sniffResult) error {
	if s.invalidAt >= 0 {
		return fmt.Errorf("%s: not valid UTF-8 at byte %d and looks like binary data (NUL or control bytes); use read_media_file for binary files", display, s.invalidAt)
	}
	return fmt.Errorf("%s: looks like binary data (NUL bytes in the first %d bytes); use read_media_file for binary files", display, binarySniffSize)
}

// decodeText turns a whole file's bytes (BOM included) into UTF-8 text.
func decodeText(b []byte, enc textEncoding) string {
	b = b[len(bomPrefix(b, enc)):]
	switch enc {
	case encUTF16LE, encUTF16BE:
		var out []byte
		out, _ = decodeUTF16(nil, b, enc, true)
		return string(out)
	case encLatin1:
		return string(appendLatin1(nil, b))
	}
	return string(b)
}

func bomPrefix(b []byte, enc textEncoding) []byte {
	if bom := enc.bom(); bytes.HasPrefix(b, bom) {
		return bom
	}
	return nil
}

// encodeText is the inverse of decodeText, BOM included. Latin-1 cannot hold characters
// above U+00FF: that is an error naming the first one, never a silent substitution.
func encodeText(s string, enc textEncoding) ([]byte, error) {
	out := append([]byte(nil), enc.bom()...)
	switch enc {
	case encUTF16LE, encUTF16BE:
		var order binary.AppendByteOrder = binary.LittleEndian
		if enc == encUTF16BE {
			order = binary.BigEndian
		}
		for _, u := range utf16.Encode([]rune(s)) {
			out = order.AppendUint16(out, u)
		}
		return out, nil
	case encLatin1:
		for i, r := range s {
			if r > 0xFF {
				return nil, fmt.Errorf("the text contains %q (U+%04X) at byte %d, which the file's Latin-1 encoding cannot represent", r, r, i)
			}
			out = append(out, byte(r))
		}
		return out, nil
	}
	return append(out, s...), nil
}

func appendLatin1(dst, src []byte) []byte {
	for _, c := range src {
		if c < utf8.RuneSelf {
			dst = append(dst, c)
		} else {
			dst = utf8.AppendRune(dst, rune(c))
		}
	}
	return dst
}

// decodeUTF16 appends the UTF-8 form of whole code units in src to dst and returns how
// many bytes of src it consumed. A high surrogate at the end waits for more input
// unless atEOF; unpaired surrogates become U+FFFD.
func decodeUTF16(dst, src []byte, enc textEncoding, atEOF bool) ([]byte, int) {
	var order binary.ByteOrder = binary.LittleEndian
	if enc == encUTF16BE {
		order = binary.BigEndian
	}
	i := 0
	for i+2 <= len(src) {
		u := rune(order.Uint16(src[i:]))
		switch {
		case u >= 0xD800 && u < 0xDC00: // high surrogate
			if i+4 > len(src) {
				if !atEOF {
					return dst, i
				}
				dst = utf8.AppendRune(dst, utf8.RuneError)
				i += 2
				continue
			}
			r := utf16.DecodeRune(u, rune(order.Uint16(src[i+2:])))
			if r == utf8.RuneError {
				dst = utf8.AppendRune(dst, utf8.RuneError)
				i += 2
				continue
			}
			dst = utf8.AppendRune(dst, r)
			i += 4
		case u >= 0xDC00 && u < 0xE000: // lone low surrogate
			dst = utf8.AppendRune(dst, utf8.RuneError)
			i += 2
		default:
			dst = utf8.AppendRune(dst, u)
			i += 2
		}
	}
	if atEOF && i < len(src) { // odd trailing byte
		dst = utf8.AppendRune(dst, utf8.RuneError)
		i = len(src)
	}
	return dst, i
}

// decodingReader streams a file's bytes (after the BOM) as UTF-8 in bounded memory.
type decodingReader struct {
	r   io.Reader
	enc textEncoding
	in  []byte
	n   int // bytes pending in in
	out []byte
	off int
	err error
}

func newDecodingReader(r io.Reader, enc textEncoding) io.Reader {
	if enc == encUTF8 || enc == encUTF8BOM {
		return r
	}
	return &decodingReader{r: r, enc: enc, in: make([]byte, 32<<10)}
}

func (d *decodingReader) Read(p []byte) (int, error) {
	for d.off >= len(d.out) {
		if d.err != nil {
			return 0, d.err
		}
		m, err := d.r.Read(d.in[d.n:])
		d.n += m
		if err != nil {
			d.err = err
		}
		d.out, d.off = d.out[:0], 0
		if d.enc == encLatin1 {
			d.out = appendLatin1(d.out, d.in[:d.n])
			d.n = 0
			continue
		}
		var used int
		d.out, used = decodeUTF16(d.out, d.in[:d.n], d.enc, d.err != nil)
		d.n = copy(d.in, d.in[used:d.n])
	}
	n := copy(p, d.out[d.off:])
	d.off += n
	return n, nil
}

// lineEndingOf reports "lf", "crlf", "mixed" or "none" for decoded text.
func lineEndingOf(text []byte) string {
	if bytes.IndexByte(text, '\r') < 0 { // the usual case, found at memory speed
		if bytes.IndexByte(text, '\n') < 0 {
			return "none"
		}
		return "lf"
	}
	lf, crlf := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			if i > 0 && text[i-1] == '\r' {
				crlf++
			} else {
				lf++
			}
		}
	}
	switch {
	case lf == 0 && crlf == 0:
		return "none"
	case lf == 0:
		return "crlf"
	case crlf == 0:
		return "lf"
	}
	return "mixed"
}
