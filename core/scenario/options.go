package scenario

import (
	"fmt"
	"strings"

	"github.com/kafkasim/kafkasim/core"
)

// opt is one KEY=VALUE word.
type opt struct {
	key word
	val word
}

// optSpec describes an option a verb knows. An option with a key is stored
// in the command's Configs under that Kafka config name (the option may
// also be written by that name) after check approves its value; an option
// without a key is read by the verb itself.
type optSpec struct {
	name  string
	key   string
	check func(string) string // "" if the value is fine, else what is wanted
}

// pass says which options not in a verb's specs pass through to Configs.
type pass int

const (
	passNone   pass = iota // none: they are errors
	passDotted             // names holding a dot: Kafka config names
	passAll                // all (set)
)

// opts is the result of parsing a verb's options.
type opts struct {
	fields  map[string]word   // values of options without a key, by name
	configs map[string]string // Kafka config name -> value
}

// oneOf accepts exactly the given values.
func oneOf(vals ...string) func(string) string {
	want := "want " + strings.Join(vals[:len(vals)-1], ", ") + " or " + vals[len(vals)-1]
	return func(v string) string {
		for _, s := range vals {
			if v == s {
				return ""
			}
		}
		return want
	}
}

// inRange accepts whole numbers in min..max.
func inRange(min, max int64) func(string) string {
	return func(v string) string { return wantNumber(v, min, max) }
}

// boolean accepts true and false.
var boolean = oneOf("true", "false")

// listOf accepts a comma-separated list of the given values.
func listOf(vals ...string) func(string) string {
	one := oneOf(vals...)
	return func(v string) string {
		for _, it := range strings.Split(v, ",") {
			if msg := one(it); msg != "" {
				return msg + " (or several, comma-separated)"
			}
		}
		return ""
	}
}

// coreCheck accepts exactly the values core accepts for config key (the
// catalog, core.LookupConfig), with the parser's wording: the parser keeps
// no table of valid values of its own.
func coreCheck(key string) func(string) string {
	s, ok := core.LookupConfig(key)
	if !ok {
		return func(string) string { return "not a config core knows" } // TestCoreChecks fails first
	}
	switch s.Type {
	case core.TypeInt:
		return inRange(s.Min, s.Max)
	case core.TypeBool, core.TypeEnum:
		return oneOf(s.Values...)
	case core.TypeList:
		return listOf(s.Values...)
	}
	return func(v string) string {
		if err := s.Check(v); err != nil {
			return err.Error()
		}
		return ""
	}
}

// alternatives writes config key's values as a synopsis does: a|b|c.
func alternatives(key string) string {
	s, _ := core.LookupConfig(key)
	return strings.Join(s.Values, "|")
}

// splitOpt splits a KEY=VALUE word.
func (p *lineParser) splitOpt(w word, usage string) (opt, error) {
	k, v, ok := strings.Cut(w.s, "=")
	if !ok {
		return opt{}, p.errAt(w, "unexpected %q: want KEY=VALUE (usage: %s)", w.s, usage)
	}
	if k == "" {
		return opt{}, p.errAt(w, "missing option name before = in %q", w.s)
	}
	if msg := checkName(k, topicChar); msg != "" {
		return opt{}, p.errAt(w, "bad option name %q: %s", k, msg)
	}
	val := word{s: v, off: w.off + len(k) + 1}
	if v == "" {
		return opt{}, p.errAt(val, "missing value after %s=", k)
	}
	return opt{key: word{s: k, off: w.off}, val: val}, nil
}

// findSpec looks an option up by its name or its Kafka config name.
func findSpec(specs []optSpec, k string) (optSpec, bool) {
	for _, s := range specs {
		if s.name == k || s.key != "" && s.key == k {
			return s, true
		}
	}
	return optSpec{}, false
}

// options parses ws as the options of verb; pt says which options not in
// specs pass through to Configs.
func (p *lineParser) options(ws []word, verb string, specs []optSpec, pt pass) (opts, error) {
	o := opts{fields: map[string]word{}, configs: map[string]string{}}
	seen := map[string]string{} // target -> name written
	for _, w := range ws {
		kv, err := p.splitOpt(w, usage[verb])
		if err != nil {
			return o, err
		}
		target, err := p.optTarget(kv, verb, specs, pt)
		if err != nil {
			return o, err
		}
		if err := p.checkDup(seen, target, kv.key); err != nil {
			return o, err
		}
		if spec, ok := findSpec(specs, kv.key.s); ok && spec.key == "" {
			o.fields[target] = kv.val
		} else {
			o.configs[target] = kv.val.s
		}
	}
	return o, nil
}

// optTarget is where option kv goes: a field name or a config name.
func (p *lineParser) optTarget(kv opt, verb string, specs []optSpec, pt pass) (string, error) {
	spec, ok := findSpec(specs, kv.key.s)
	switch {
	case ok && spec.key == "":
		return spec.name, nil
	case ok:
		if msg := spec.check(kv.val.s); msg != "" {
			return "", p.errAt(kv.val, "bad %s %q: %s", kv.key.s, kv.val.s, msg)
		}
		return spec.key, nil
	case pt == passAll || pt == passDotted && strings.Contains(kv.key.s, "."):
		return kv.key.s, nil
	}
	return "", p.errAt(kv.key, "unknown option %q for %s (valid: %s)",
		kv.key.s, verb, validList(specs, pt == passDotted))
}

// validList names the valid options for an error message.
func validList(specs []optSpec, dotted bool) string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
	}
	list := strings.Join(names, ", ")
	if dotted {
		list += ", or a Kafka config name with a dot"
	}
	return list
}

// checkDup fails if target was already set on this line.
func (p *lineParser) checkDup(seen map[string]string, target string, key word) error {
	prev, dup := seen[target]
	if !dup {
		seen[target] = key.s
		return nil
	}
	if prev == key.s {
		return p.errAt(key, "option %s given twice", key.s)
	}
	return p.errAt(key, "option %s given twice (also as %s)", key.s, prev)
}

// required returns field name of o, or an error that it is missing.
func (p *lineParser) required(o opts, name, verb string) (word, error) {
	w, ok := o.fields[name]
	if !ok {
		return w, p.errEnd("missing %s= (usage: %s)", name, usage[verb])
	}
	return w, nil
}

// configs returns c, or nil if it is empty.
func configs(c map[string]string) map[string]string {
	if len(c) == 0 {
		return nil
	}
	return c
}

// describe is used in messages about a list's length.
func describe(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}
