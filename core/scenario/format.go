package scenario

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
)

// Format renders one step as a scenario line, the inverse of ParseLine:
// ParseLine(Format(st)) gives back st's Cluster, Cmd, Expect or Print
// (Line, Text and Expect.Col aside). Options holding a Kafka config are
// written by the short name the verb knows them by (idempotence=true), the
// others by their Kafka name. It fails for what the language cannot
// express: empty or spaced names and values, a record value holding a
// comma, a config key without a dot on a verb that passes only dotted keys,
// an empty manual assignment, a zero-length split, or a step with nothing
// (or more than one thing) set.
func Format(st Step) (string, error) {
	n := 0
	for _, set := range []bool{st.Cluster != nil, st.Cmd != nil, st.Expect != nil, st.Print != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return "", fmt.Errorf("format: a step needs exactly one of cluster, command, expect and print (has %d)", n)
	}
	var line string
	var err error
	switch {
	case st.Cluster != nil:
		line, err = formatCluster(*st.Cluster)
	case st.Cmd != nil:
		line, err = FormatCommand(st.Cmd)
	case st.Expect != nil:
		line, err = formatExpect(st.Expect)
	default:
		line, err = formatPrint(st.Print)
	}
	if err != nil {
		return "", err
	}
	// The parser is the judge: the line must parse back to the same step
	// (a value holding " #" would lose its tail to a comment, a spaced one
	// would split, ...).
	back, perr := ParseLine(line, 1)
	if perr != nil {
		return "", fmt.Errorf("format: %q does not parse: %v", line, perr)
	}
	if back == nil || !SameStep(*back, st) {
		return "", fmt.Errorf("format: %q does not parse back to the same step", line)
	}
	return line, nil
}

// SameStep reports whether two steps say the same thing: the same cluster
// options, command, expectation or print, whatever their line numbers,
// texts and columns. Empty and nil maps and lists are the same.
func SameStep(a, b Step) bool {
	switch {
	case a.Cluster != nil || b.Cluster != nil:
		return a.Cluster != nil && b.Cluster != nil && reflect.DeepEqual(normalize(*a.Cluster), normalize(*b.Cluster))
	case a.Cmd != nil || b.Cmd != nil:
		return a.Cmd != nil && b.Cmd != nil && reflect.DeepEqual(normalize(a.Cmd), normalize(b.Cmd))
	case a.Expect != nil || b.Expect != nil:
		if a.Expect == nil || b.Expect == nil {
			return false
		}
		x, y := *a.Expect, *b.Expect
		x.Col, y.Col = 0, 0
		return reflect.DeepEqual(x, y)
	case a.Print != nil || b.Print != nil:
		return a.Print != nil && b.Print != nil && *a.Print == *b.Print
	}
	return true
}

// normalize returns v with empty maps and slices (at any depth of its
// struct fields) set to nil, and a *CreateTopic dereferenced, so that
// reflect.DeepEqual compares meaning rather than representation.
func normalize(v any) any {
	if ct, ok := v.(*core.CreateTopic); ok && ct != nil {
		v = *ct
	}
	rv := reflect.ValueOf(v)
	out := reflect.New(rv.Type()).Elem()
	out.Set(rv)
	if out.Kind() == reflect.Struct {
		for i := 0; i < out.NumField(); i++ {
			f := out.Field(i)
			if (f.Kind() == reflect.Map || f.Kind() == reflect.Slice) && f.Len() == 0 && f.CanSet() {
				f.Set(reflect.Zero(f.Type()))
			}
		}
	}
	return out.Interface()
}

// FormatScript renders a whole script, one step a line (with a final
// newline). It fails on the first step Format cannot render.
func FormatScript(s *Script) (string, error) {
	var b strings.Builder
	for i := range s.Steps {
		line, err := Format(s.Steps[i])
		if err != nil {
			return "", fmt.Errorf("step %d: %w", i+1, err)
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// FormatCommand renders one command as a scenario line.
func FormatCommand(cmd core.Command) (string, error) {
	switch x := cmd.(type) {
	case *core.CreateTopic:
		if x == nil {
			return "", fmt.Errorf("format: nil command")
		}
		return FormatCommand(*x)
	case core.CreateTopic:
		return formatCreateTopic(x)
	case core.AlterTopic:
		return join("topic alter", x.Topic, "partitions="+strconv.Itoa(x.Partitions))
	case core.DeleteTopic:
		return join("topic delete", x.Topic)
	case core.AlterTopicConfigs:
		return formatTopicConfig(x)
	case core.ElectLeaders:
		if x.Election != core.ElectPreferred && x.Election != core.ElectUnclean {
			return "", fmt.Errorf("format: unknown election type %q", x.Election)
		}
		if len(x.Partitions) == 0 {
			return join("elect", x.Election)
		}
		return join("elect", x.Election, strings.Join(x.Partitions, ","))
	case core.DeleteRecords:
		return join("records delete", x.Partition, strconv.FormatInt(x.Offset, 10))
	case core.Set:
		if len(x.Configs) == 0 {
			return "", fmt.Errorf("format: set with nothing to set")
		}
		opts, err := configWords(x.Configs, nil, passAll)
		if err != nil {
			return "", err
		}
		return join("set", opts...)
	case core.NewProducer:
		opts, err := configWords(x.Configs, producerOpts, passDotted)
		if err != nil {
			return "", err
		}
		return join("producer", append([]string{x.Name}, opts...)...)
	case core.Produce:
		return formatProduce(x)
	case core.NewConsumer:
		return formatConsumer(x)
	case core.Assign:
		if len(x.Partitions) == 0 {
			return "", fmt.Errorf("format: assign %s with no partitions cannot be written", x.Consumer)
		}
		return join("assign", x.Consumer, strings.Join(x.Partitions, ","))
	case core.Poll:
		w := []string{x.Consumer}
		if x.Max != 0 {
			w = append(w, "max="+strconv.Itoa(x.Max))
		}
		if x.Timeout != 0 {
			w = append(w, "timeout="+formatDuration(x.Timeout))
		}
		return join("poll", w...)
	case core.Commit:
		return join("commit", x.Consumer)
	case core.CloseConsumer:
		return join("close", x.Consumer)
	case core.CrashConsumer:
		return join("crash consumer", x.Consumer)
	case core.CrashBroker:
		return join("crash broker", strconv.Itoa(x.Broker))
	case core.PowerOff:
		return join("poweroff broker", strconv.Itoa(x.Broker))
	case core.Restart:
		return join("restart broker", strconv.Itoa(x.Broker))
	case core.Pause:
		return join("pause broker", strconv.Itoa(x.Broker))
	case core.Resume:
		return join("resume broker", strconv.Itoa(x.Broker))
	case core.NetSplit:
		if len(x.Groups) < 2 {
			return "", fmt.Errorf("format: net split needs two or more groups")
		}
		gs := make([]string, len(x.Groups))
		for i, g := range x.Groups {
			if len(g) == 0 {
				return "", fmt.Errorf("format: net split with an empty group")
			}
			gs[i] = strings.Join(g, ",")
		}
		return "net split " + strings.Join(gs, " | "), nil
	case core.NetHeal:
		return "net heal", nil
	case core.NetDelay:
		return join("net delay", x.From, x.To, formatDuration(x.Delay))
	case core.NetDrop:
		w := []string{x.From, x.To}
		if x.Count != 0 {
			w = append(w, "count="+strconv.Itoa(x.Count))
		}
		return join("net drop", w...)
	case core.ZKDelete:
		return formatZKDelete(x)
	case core.OpenConn, core.CloseConn, core.BrokerRequest:
		return formatOutside(x)
	case core.RestoreChunk:
		return formatRestore(x)
	case core.Wait:
		return join("wait", formatDuration(x.Duration))
	case core.Settle:
		if x.Max != 0 {
			return join("settle", "max="+formatDuration(x.Max))
		}
		return "settle", nil
	case nil:
		return "", fmt.Errorf("format: nil command")
	}
	return "", fmt.Errorf("format: no scenario syntax for command %T", cmd)
}

// join builds "verb w1 w2 ..." and checks that no operand is empty or
// spaced.
func join(verb string, words ...string) (string, error) {
	for _, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\r\n\u3000") || strings.HasPrefix(w, "#") {
			return "", fmt.Errorf("format: %s: operand %q cannot be written as one word", verb, w)
		}
	}
	return strings.TrimSpace(verb + " " + strings.Join(words, " ")), nil
}

func formatCluster(o core.Options) (string, error) {
	w := []string{"brokers=" + strconv.Itoa(o.Brokers)}
	if o.Seed != 0 {
		w = append(w, "seed="+strconv.FormatUint(o.Seed, 10))
	}
	if o.Version != "" {
		w = append(w, "version="+o.Version)
	}
	if o.Metadata != "" {
		w = append(w, "metadata="+o.Metadata)
	}
	if len(o.Racks) > 0 {
		w = append(w, "racks="+strings.Join(o.Racks, ","))
	}
	return join("cluster", w...)
}

func formatCreateTopic(x core.CreateTopic) (string, error) {
	w := []string{x.Topic, "partitions=" + strconv.Itoa(x.Partitions), "rf=" + strconv.Itoa(x.RF)}
	if len(x.Assign) > 0 {
		lists := make([]string, len(x.Assign))
		for i, reps := range x.Assign {
			ids := make([]string, len(reps))
			for j, id := range reps {
				ids[j] = strconv.Itoa(id)
			}
			lists[i] = strings.Join(ids, ",")
		}
		w = append(w, "assign="+strings.Join(lists, "/"))
	}
	opts, err := configWords(x.Configs, topicCreateOpts, passDotted)
	if err != nil {
		return "", err
	}
	return join("topic create", append(w, opts...)...)
}

func formatProduce(x core.Produce) (string, error) {
	if strings.Contains(x.Value, ",") || x.Value == "none" {
		return "", fmt.Errorf("format: record value %q cannot be written (no commas, not \"none\")", x.Value)
	}
	w := []string{x.Producer, x.Topic, "value=" + x.Value}
	if x.Key != nil {
		w = append(w, "key="+*x.Key)
	}
	if x.Partition != nil {
		w = append(w, "partition="+strconv.Itoa(*x.Partition))
	}
	if x.Count != 0 {
		w = append(w, "count="+strconv.Itoa(x.Count))
	}
	if x.Value == "" || x.Key != nil && *x.Key == "" {
		return "", fmt.Errorf("format: produce with an empty value or key cannot be written")
	}
	return join("produce", w...)
}

func formatConsumer(x core.NewConsumer) (string, error) {
	w := []string{x.Name}
	if x.Group != "" {
		w = append(w, "group="+x.Group)
	}
	if len(x.Topics) > 0 {
		w = append(w, "topics="+strings.Join(x.Topics, ","))
	}
	opts, err := configWords(x.Configs, consumerOpts, passDotted)
	if err != nil {
		return "", err
	}
	return join("consumer", append(w, opts...)...)
}

// configWords renders configs as KEY=VALUE words in sorted key order,
// using a spec's short name where the verb has one.
func configWords(cfg map[string]string, specs []optSpec, pt pass) ([]string, error) {
	keys := slices.Sorted(maps.Keys(cfg))
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		name := k
		short := false
		for _, s := range specs {
			if s.key == k {
				name, short = s.name, true
				break
			}
			if s.name == k && s.key == "" {
				return nil, fmt.Errorf("format: %q is an operand of its verb, not a config", k)
			}
		}
		if !short && pt == passDotted && !strings.Contains(k, ".") {
			return nil, fmt.Errorf("format: config %q has no dot: this verb cannot pass it through", k)
		}
		if cfg[k] == "" {
			return nil, fmt.Errorf("format: config %s has an empty value", k)
		}
		out = append(out, name+"="+cfg[k])
	}
	return out, nil
}

// formatDuration writes ms in the largest unit that divides it exactly.
func formatDuration(ms int64) string {
	switch {
	case ms == 0:
		return "0"
	case ms%60000 == 0:
		return strconv.FormatInt(ms/60000, 10) + "m"
	case ms%1000 == 0:
		return strconv.FormatInt(ms/1000, 10) + "s"
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

func formatExpect(e *Expect) (string, error) {
	w := []string{"expect", e.Kind}
	if e.Target != "" {
		w = append(w, e.Target)
	}
	if e.Arg != "" {
		w = append(w, e.Arg)
	}
	if e.Kind == "assignment" {
		for _, m := range e.Members {
			w = append(w, m.Member+"="+strings.Join(m.Partitions, ","))
		}
		return strings.Join(w, " "), nil
	}
	if e.Op == "" || e.Want == "" {
		return "", fmt.Errorf("format: expect %s without operator or value", e.Kind)
	}
	return strings.Join(append(w, e.Op, e.Want), " "), nil
}

func formatPrint(p *Print) (string, error) {
	if p.Target == "" {
		return "print", nil
	}
	if p.Offset >= 0 {
		return join("print", p.Target, "offset="+strconv.FormatInt(p.Offset, 10))
	}
	return join("print", p.Target)
}

func formatTopicConfig(x core.AlterTopicConfigs) (string, error) {
	opts, err := configWords(x.Set, []optSpec{{name: "delete"}}, passDotted)
	if err != nil {
		return "", err
	}
	if len(x.Delete) > 0 {
		for _, k := range x.Delete {
			if k == "" || strings.ContainsAny(k, ", \t=#") {
				return "", fmt.Errorf("format: config name %q cannot be written in delete=", k)
			}
		}
		opts = append(opts, "delete="+strings.Join(x.Delete, ","))
	}
	if len(opts) == 0 {
		return "", fmt.Errorf("format: topic config %s with nothing to change", x.Topic)
	}
	return join("topic config", append([]string{x.Topic}, opts...)...)
}
