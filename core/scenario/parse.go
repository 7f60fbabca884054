package scenario

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Parse parses a whole scenario. Lines end in "\n" (a "\r" before it is
// dropped) and a leading UTF-8 byte order mark is ignored. It returns the
// first error, always an *Error.
func Parse(src string) (*Script, error) {
	if len(src) > MaxScriptBytes {
		return nil, &Error{Line: 1, Col: 1, Msg: fmt.Sprintf(
			"script too large: %d bytes (max %d)", len(src), MaxScriptBytes)}
	}
	src = strings.TrimPrefix(src, "\uFEFF")
	s := &Script{}
	for lineNo := 1; src != ""; lineNo++ {
		if lineNo > MaxLines {
			return nil, &Error{Line: lineNo, Col: 1, Msg: fmt.Sprintf(
				"too many lines (max %d)", MaxLines)}
		}
		var line string
		line, src, _ = strings.Cut(src, "\n")
		st, err := ParseLine(line, lineNo)
		if err != nil {
			return nil, err
		}
		if st != nil {
			s.Steps = append(s.Steps, *st)
		}
	}
	return s, nil
}

// ParseLine parses one line of a scenario; lineNo is used in errors and in
// Step.Line. It returns nil, nil for a blank or comment-only line. Errors
// are *Error.
//
// Comments: a '#' starts a comment when it is at the start of the line or
// follows white space, and is outside double quotes. Quotes have no other
// meaning (they are kept in the text); a quote left open runs to the end of
// the line, so no comment follows it. So `value=a#b` and
// `contains "k":"#x"` keep their '#', and `wait 1s # why` drops "# why".
func ParseLine(line string, lineNo int) (*Step, error) {
	line = strings.TrimSuffix(line, "\r")
	if max := maxLine(line); len(line) > max {
		return nil, &Error{Line: lineNo, Col: 1, Msg: fmt.Sprintf(
			"line too long: %d bytes (max %d)", len(line), max)}
	}
	if err := checkChars(line, lineNo); err != nil {
		return nil, err
	}
	if !isOutsideLine(line) {
		line = stripComment(line)
	}
	text := strings.TrimSpace(line)
	if text == "" {
		return nil, nil
	}
	p := &lineParser{line: line, no: lineNo, words: splitWords(line, 0)}
	st := &Step{Line: lineNo, Text: text}
	if err := p.parse(st); err != nil {
		return nil, err
	}
	return st, nil
}

// checkChars rejects invalid UTF-8 and control characters other than tab.
func checkChars(line string, lineNo int) error {
	col := 1
	for i := 0; i < len(line); col++ {
		r, size := utf8.DecodeRuneInString(line[i:])
		if r == utf8.RuneError && size == 1 {
			return &Error{Line: lineNo, Col: col, Msg: fmt.Sprintf(
				"invalid UTF-8 byte 0x%02x", line[i])}
		}
		if r != '\t' && unicode.IsControl(r) {
			return &Error{Line: lineNo, Col: col, Msg: fmt.Sprintf(
				"control character %U not allowed", r)}
		}
		i += size
	}
	return nil
}

// stripComment cuts line at the '#' that starts its comment, if any.
func stripComment(line string) string {
	quoted := false
	prevSpace := true
	for i, r := range line {
		switch {
		case r == '"':
			quoted = !quoted
		case r == '#' && prevSpace && !quoted:
			return line[:i]
		}
		prevSpace = unicode.IsSpace(r)
	}
	return line
}

// word is a run of non-space characters and its byte offset in the line.
type word struct {
	s   string
	off int
}

// end is the byte offset just after w.
func (w word) end() int { return w.off + len(w.s) }

// splitWords splits s at white space; offsets are s's plus base.
func splitWords(s string, base int) []word {
	var ws []word
	start := -1
	for i, r := range s {
		switch {
		case unicode.IsSpace(r) && start >= 0:
			ws = append(ws, word{s: s[start:i], off: base + start})
			start = -1
		case !unicode.IsSpace(r) && start < 0:
			start = i
		}
	}
	if start >= 0 {
		ws = append(ws, word{s: s[start:], off: base + start})
	}
	return ws
}

// splitList splits w at commas into items that keep their offsets.
func splitList(w word) []word {
	parts := strings.Split(w.s, ",")
	items := make([]word, len(parts))
	off := w.off
	for i, s := range parts {
		items[i] = word{s: s, off: off}
		off += len(s) + 1
	}
	return items
}

// lineParser parses one comment-stripped line.
type lineParser struct {
	line  string
	no    int
	words []word
}

// col is the 1-based column of byte offset off.
func (p *lineParser) col(off int) int {
	return utf8.RuneCountInString(p.line[:off]) + 1
}

// errOff is an *Error at byte offset off.
func (p *lineParser) errOff(off int, format string, a ...any) error {
	return &Error{Line: p.no, Col: p.col(off), Msg: fmt.Sprintf(format, a...)}
}

// errAt is an *Error at word w.
func (p *lineParser) errAt(w word, format string, a ...any) error {
	return p.errOff(w.off, format, a...)
}

// errEnd is an *Error just after the last word, for something missing.
func (p *lineParser) errEnd(format string, a ...any) error {
	return p.errOff(p.words[len(p.words)-1].end(), format, a...)
}

// arg returns word i, or an error naming what is missing there.
func (p *lineParser) arg(i int, what, usage string) (word, error) {
	if i >= len(p.words) {
		return word{}, p.errEnd("missing %s (usage: %s)", what, usage)
	}
	return p.words[i], nil
}

// keyword checks that word i is want, as in `crash broker N`.
func (p *lineParser) keyword(i int, want, usage string) error {
	w, err := p.arg(i, want, usage)
	if err == nil && w.s != want {
		err = p.errAt(w, "want %q, got %q (usage: %s)", want, w.s, usage)
	}
	return err
}

// noMore fails if the line has words from index i on.
func (p *lineParser) noMore(i int, usage string) error {
	if i < len(p.words) {
		return p.errAt(p.words[i], "unexpected %q (usage: %s)", p.words[i].s, usage)
	}
	return nil
}

// rest is the trimmed text after word w and its offset.
func (p *lineParser) rest(w word) (string, int) {
	s := p.line[w.end():]
	trimmed := strings.TrimLeftFunc(s, unicode.IsSpace)
	off := w.end() + len(s) - len(trimmed)
	return strings.TrimRightFunc(trimmed, unicode.IsSpace), off
}

// parse fills st from the line's verb and operands.
func (p *lineParser) parse(st *Step) error {
	v := p.words[0]
	h, ok := verbs[v.s]
	if !ok {
		return p.errAt(v, "unknown verb %q", v.s)
	}
	return h(p, st)
}
