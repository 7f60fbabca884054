package lessons

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// frontMatter is the block between the opening and closing "---" lines.
// It is a small, strict subset of YAML: `key: value` lines, and lists
// written either inline (`key: [a, b]`) or as `- item` lines under `key:`.
// Unknown keys and duplicate keys are errors.
type frontMatter struct {
	id, title, summary string
	order              int
	prerequisites      []string
	sources            []Source
}

var (
	keyRe  = regexp.MustCompile(`^([a-z]+):\s*(.*)$`)
	linkRe = regexp.MustCompile(`^\[([^\]]+)\]\((\S+)\)$`)
	idRe   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
)

// splitFrontMatter returns the front matter's lines, the Markdown body and
// the 1-based line on which the body starts.
func splitFrontMatter(src string) (fm []string, body string, bodyLine int, err error) {
	if !strings.HasPrefix(src, "---\n") {
		return nil, "", 0, &Error{Line: 1, Msg: `a lesson starts with front matter: a "---" line, "key: value" lines, then "---"`}
	}
	rest := src[len("---\n"):]
	for n := 2; rest != ""; n++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if strings.TrimRight(line, " \t") == "---" {
			return fm, rest, n + 1, nil
		}
		fm = append(fm, line)
	}
	return nil, "", 0, &Error{Line: 1, Msg: `front matter has no closing "---" line`}
}

// parseFrontMatter parses the lines of the front matter; line numbers in
// errors count from 2 (the line after the opening "---").
func parseFrontMatter(lines []string) (*frontMatter, error) {
	fm := &frontMatter{}
	seen := map[string]bool{}
	for i := 0; i < len(lines); i++ {
		no := i + 2
		line := strings.TrimRight(lines[i], " \t")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		m := keyRe.FindStringSubmatch(line)
		if m == nil {
			return nil, &Error{Line: no, Msg: fmt.Sprintf("front matter: want `key: value`, got %q", line)}
		}
		key, val := m[1], strings.TrimSpace(m[2])
		if seen[key] {
			return nil, &Error{Line: no, Msg: "front matter: " + key + " given twice"}
		}
		seen[key] = true
		var items []string
		if key == "prerequisites" || key == "sources" {
			switch {
			case strings.HasPrefix(val, "["):
				if !strings.HasSuffix(val, "]") {
					return nil, &Error{Line: no, Msg: "front matter: inline list without closing ]"}
				}
				for _, it := range strings.Split(val[1:len(val)-1], ",") {
					if it = unquote(strings.TrimSpace(it)); it != "" {
						items = append(items, it)
					}
				}
			case val != "":
				return nil, &Error{Line: no, Msg: "front matter: " + key + " is a list: `" + key + ": [a, b]` or `- item` lines below it"}
			default:
				for i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "- ") {
					i++
					items = append(items, unquote(strings.TrimSpace(strings.TrimSpace(lines[i])[2:])))
				}
			}
		}
		if err := fm.set(key, unquote(val), items, no); err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"id", "title", "order", "summary"} {
		if !seen[k] {
			return nil, &Error{Line: 1, Msg: "front matter: " + k + " is required"}
		}
	}
	return fm, nil
}

func (fm *frontMatter) set(key, val string, items []string, no int) error {
	switch key {
	case "id":
		if !idRe.MatchString(val) {
			return &Error{Line: no, Msg: fmt.Sprintf("front matter: id %q: lower-case letters, digits and dashes, at most 63", val)}
		}
		fm.id = val
	case "title":
		fm.title = val
	case "summary":
		fm.summary = val
	case "order":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > 10000 {
			return &Error{Line: no, Msg: fmt.Sprintf("front matter: order %q: a whole number 0..10000", val)}
		}
		fm.order = n
	case "prerequisites":
		for _, it := range items {
			if !idRe.MatchString(it) {
				return &Error{Line: no, Msg: fmt.Sprintf("front matter: prerequisite %q is not a lesson id", it)}
			}
		}
		fm.prerequisites = items
	case "sources":
		for _, it := range items {
			if m := linkRe.FindStringSubmatch(it); m != nil {
				fm.sources = append(fm.sources, Source{Text: m[1], URL: m[2]})
			} else {
				fm.sources = append(fm.sources, Source{Text: it})
			}
		}
	default:
		return &Error{Line: no, Msg: fmt.Sprintf("front matter: unknown key %q (id, title, order, summary, prerequisites, sources)", key)}
	}
	if len(val) > maxTextBytes {
		return &Error{Line: no, Msg: "front matter: " + key + " too long"}
	}
	return nil
}

// unquote drops one pair of surrounding double or single quotes.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}
