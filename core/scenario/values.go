package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// wantNumber checks that s is a whole number in min..max written without
// sign or leading zeros; it returns "" or what was wanted instead.
func wantNumber(s string, min, max int64) string {
	rng := fmt.Sprintf("want a whole number in %d..%d", min, max)
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return rng
	}
	if len(s) > 1 && s[0] == '0' {
		return rng + " without leading zeros"
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < min || n > max {
		return rng
	}
	return ""
}

// number parses w as a whole number in min..max; what names it in errors.
func (p *lineParser) number(w word, what string, min, max int64) (int64, error) {
	if msg := wantNumber(w.s, min, max); msg != "" {
		return 0, p.errAt(w, "bad %s %q: %s", what, w.s, msg)
	}
	n, _ := strconv.ParseInt(w.s, 10, 64)
	return n, nil
}

// broker parses a broker id.
func (p *lineParser) broker(w word) (int, error) {
	n, err := p.number(w, "broker id", 1, MaxBrokers)
	return int(n), err
}

// duration parses 250ms, 10s, 2m or 0 into milliseconds, at least min and
// at most max (the core's limit for the command: core.MaxWait, ...).
func (p *lineParser) duration(w word, min, max int64) (int64, error) {
	ms, ok := parseDuration(w.s)
	if !ok {
		return 0, p.errAt(w, "bad duration %q: want a number with ms, s or m", w.s)
	}
	if ms > max {
		return 0, p.errAt(w, "duration %q too long (max %s)", w.s, formatDuration(max))
	}
	if ms < min {
		return 0, p.errAt(w, "duration %q too short (min %dms)", w.s, min)
	}
	return ms, nil
}

// parseDuration converts a duration to ms; ok is false if it is malformed.
// Values past maxDuration come back as maxDuration+1.
func parseDuration(s string) (int64, bool) {
	if s == "0" {
		return 0, true
	}
	num, scale := s, int64(0)
	for _, u := range []struct {
		suffix string
		scale  int64
	}{{"ms", 1}, {"s", 1000}, {"m", 60000}} {
		if strings.HasSuffix(s, u.suffix) {
			num, scale = strings.TrimSuffix(s, u.suffix), u.scale
			break
		}
	}
	if scale == 0 || !allDigits(num) || len(num) > 1 && num[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > maxDuration/scale {
		return maxDuration + 1, true
	}
	return n * scale, true
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	return s != "" && strings.TrimLeft(s, "0123456789") == ""
}

// topicChar reports whether r may appear in a Kafka topic name.
func topicChar(r rune) bool {
	return r < 128 && (r == '.' || r == '_' || r == '-' ||
		unicode.IsLetter(r) || unicode.IsDigit(r))
}

// nameChar reports whether r may appear in a client or group name.
func nameChar(r rune) bool {
	return r == '.' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// checkName checks s against ok, the length limit and "."/"..".
func checkName(s string, ok func(rune) bool) string {
	switch {
	case s == "":
		return "empty name"
	case len(s) > maxNameLen:
		return fmt.Sprintf("longer than %d bytes", maxNameLen)
	case s == "." || s == "..":
		return "not a name"
	case strings.IndexFunc(s, func(r rune) bool { return !ok(r) }) >= 0:
		return "use letters, digits, '.', '_' and '-'"
	}
	return ""
}

// topic checks a topic name.
func (p *lineParser) topic(w word) (string, error) {
	if msg := checkName(w.s, topicChar); msg != "" {
		return "", p.errAt(w, "bad topic name %q: %s", w.s, msg)
	}
	return w.s, nil
}

// topics checks a comma-separated list of distinct topic names.
func (p *lineParser) topics(w word) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, t := range strings.Split(w.s, ",") {
		if t == "" {
			return nil, p.errAt(w, "empty item in list %q", w.s)
		}
		if _, err := p.topic(word{s: t, off: w.off}); err != nil {
			return nil, err
		}
		if seen[t] {
			return nil, p.errAt(w, "topic %s listed twice", t)
		}
		seen[t] = true
		out = append(out, t)
	}
	return out, nil
}

// group checks a consumer group name.
func (p *lineParser) group(w word) (string, error) {
	if msg := checkName(w.s, nameChar); msg != "" {
		return "", p.errAt(w, "bad group name %q: %s", w.s, msg)
	}
	return w.s, nil
}

// reservedHosts are host names that are not clients.
var reservedHosts = map[string]bool{"zk": true, "controller": true}

// client checks the name of a producer or consumer (kind), which is also
// the name of its host: not a number and not a reserved host name.
func (p *lineParser) client(w word, kind string) (string, error) {
	if msg := checkName(w.s, nameChar); msg != "" {
		return "", p.errAt(w, "bad %s name %q: %s", kind, w.s, msg)
	}
	if allDigits(w.s) {
		return "", p.errAt(w, "bad %s name %q: a number would name a broker", kind, w.s)
	}
	if reservedHosts[w.s] {
		return "", p.errAt(w, "bad %s name %q: reserved for a host", kind, w.s)
	}
	return w.s, nil
}

// host checks a network host: a broker id, a client name, zk or controller.
func (p *lineParser) host(w word) (string, error) {
	if allDigits(w.s) {
		_, err := p.broker(w)
		return w.s, err
	}
	if reservedHosts[w.s] {
		return w.s, nil
	}
	if msg := checkName(w.s, nameChar); msg != "" {
		return "", p.errAt(w, "bad host %q: want a broker id, a client name, zk or controller", w.s)
	}
	return w.s, nil
}

// partition checks TOPIC-N; the topic ends at the last dash.
func (p *lineParser) partition(w word) (string, error) {
	i := strings.LastIndexByte(w.s, '-')
	if i <= 0 || wantNumber(w.s[i+1:], 0, maxInt32-1) != "" {
		return "", p.errAt(w, "bad partition %q: want TOPIC-N (e.g. orders-0)", w.s)
	}
	if _, err := p.topic(word{s: w.s[:i], off: w.off}); err != nil {
		return "", err
	}
	return w.s, nil
}

// replica checks TOPIC-N@B.
func (p *lineParser) replica(w word) (string, error) {
	part, b, ok := strings.Cut(w.s, "@")
	if !ok || part == "" {
		return "", p.errAt(w, "bad replica %q: want TOPIC-N@BROKER (e.g. orders-0@2)", w.s)
	}
	if _, err := p.partition(word{s: part, off: w.off}); err != nil {
		return "", err
	}
	if _, err := p.broker(word{s: b, off: w.off + len(part) + 1}); err != nil {
		return "", err
	}
	return w.s, nil
}

// partitions checks a comma-separated list of distinct partitions; an
// empty word is an empty list.
func (p *lineParser) partitions(w word) ([]string, error) {
	out := []string{}
	if w.s == "" {
		return out, nil
	}
	seen := map[string]bool{}
	for _, it := range splitList(w) {
		if it.s == "" {
			return nil, p.errAt(it, "empty item in list %q", w.s)
		}
		name, err := p.partition(it)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, p.errAt(it, "partition %s listed twice", name)
		}
		seen[name] = true
		out = append(out, name)
	}
	return out, nil
}

// brokers checks a comma-separated list of distinct broker ids.
func (p *lineParser) brokers(w word) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, it := range splitList(w) {
		b, err := p.broker(it)
		if err != nil {
			return nil, err
		}
		if seen[b] {
			return nil, p.errAt(it, "broker %d listed twice", b)
		}
		seen[b] = true
		out = append(out, b)
	}
	return out, nil
}

// record checks one (non-empty) record value: no comma, not "none".
func (p *lineParser) record(w word) (string, error) {
	switch {
	case strings.Contains(w.s, ","):
		return "", p.errAt(w, "bad record value %q: no commas (lists of records use them)", w.s)
	case w.s == "none":
		return "", p.errAt(w, "bad record value \"none\": it means an empty list in expect")
	}
	return w.s, nil
}
