package scenario

import (
	"slices"
	"strings"
)

// expectForm describes one kind of expect line:
// expect KIND [TARGET] [ARG] OP WANT.
type expectForm struct {
	usage   string
	target  string                                  // name of the target in errors; "" = none
	checkT  func(*lineParser, word) (string, error) // checks the target
	arg     string                                  // name of the extra operand; "" = none
	checkA  func(*lineParser, word) (string, error) // checks the extra operand
	ops     []string                                // operators allowed
	checkWs func(*lineParser, *Expect, []word) error
}

// expectForms holds every kind of expect line.
var expectForms = map[string]expectForm{
	"leader": {usage: "expect leader PARTITION == BROKER|none", target: "PARTITION",
		checkT: (*lineParser).partition, checkWs: wantBroker},
	"isr": {usage: "expect isr PARTITION == BROKER,...|none", target: "PARTITION",
		checkT: (*lineParser).partition, checkWs: wantBrokers},
	"hw": {usage: "expect hw PARTITION == N", target: "PARTITION",
		checkT: (*lineParser).partition, checkWs: wantCount},
	"leo": {usage: "expect leo TOPIC-N@BROKER == N", target: "TOPIC-N@BROKER",
		checkT: (*lineParser).replica, checkWs: wantCount},
	"segments": {usage: "expect segments TOPIC-N@BROKER == BASE_OFFSET,... (the replica's segment files, oldest first)", target: "TOPIC-N@BROKER",
		checkT: (*lineParser).replica, checkWs: wantOffsets},
	"epoch": {usage: "expect epoch PARTITION == N", target: "PARTITION",
		checkT: (*lineParser).partition, checkWs: wantCount},
	"acked": {usage: "expect acked PRODUCER == RECORD,...|none or expect acked PRODUCER contains RECORD,...", target: "PRODUCER",
		checkT: producerName, ops: recordOps, checkWs: wantRecords},
	"failed": {usage: "expect failed PRODUCER RECORD == ERROR_NAME|none", target: "PRODUCER",
		checkT: producerName, arg: "RECORD", checkA: (*lineParser).record, checkWs: wantError},
	"log": {usage: "expect log PARTITION == RECORD,...|none or expect log PARTITION contains RECORD,...", target: "PARTITION",
		checkT: (*lineParser).partition, ops: recordOps, checkWs: wantRecords},
	"lost": {usage: "expect lost == RECORD,...|none", checkWs: wantRecords},
	"consumed": {usage: "expect consumed CONSUMER == RECORD,...|none or expect consumed CONSUMER contains RECORD,...", target: "CONSUMER",
		checkT: consumerName, ops: recordOps, checkWs: wantRecords},
	"assignment": {usage: "expect assignment GROUP MEMBER=PARTITION,... ...", target: "GROUP",
		checkT: (*lineParser).group},
	"generation": {usage: "expect generation GROUP == N", target: "GROUP",
		checkT: (*lineParser).group, checkWs: wantCount},
	"committed": {usage: "expect committed GROUP PARTITION == OFFSET|none", target: "GROUP",
		checkT: (*lineParser).group, arg: "PARTITION", checkA: (*lineParser).partition,
		checkWs: wantCountOrNone},
	"violations": {usage: "expect violations == KIND,...|none (what the invariant checker finds now)",
		checkWs: wantRecords},
	"error": {usage: "expect error == TEXT or expect error contains TEXT (the previous command's error)",
		ops: []string{"==", "contains"}, checkWs: wantText},
	"znode": {usage: "expect znode PATH == TEXT or expect znode PATH contains TEXT", target: "PATH",
		checkT: (*lineParser).znodePath, ops: []string{"==", "contains"}, checkWs: wantText},
}

// recordOps are the operators of record lists: == compares the whole list
// in order; contains holds when every listed record is in it (the records
// a producer or consumer must at least have seen, in any order).
var recordOps = []string{"==", "contains"}

// expectKinds lists the kinds for error messages.
const expectKinds = "leader, isr, hw, leo, epoch, acked, failed, log, lost, consumed, assignment, generation, committed, znode, violations or error"

// producerName checks a producer name.
func producerName(p *lineParser, w word) (string, error) { return p.client(w, "producer") }

// consumerName checks a consumer name.
func consumerName(p *lineParser, w word) (string, error) { return p.client(w, "consumer") }

// parseExpect parses `expect KIND ...` into Step.Expect.
func parseExpect(p *lineParser, st *Step) error {
	kw, err := p.arg(1, "KIND", usage["expect"])
	if err != nil {
		return err
	}
	form, ok := expectForms[kw.s]
	if !ok {
		return p.errAt(kw, "unknown expect kind %q (want %s)", kw.s, expectKinds)
	}
	e := &Expect{Kind: kw.s}
	i, err := p.expectOperands(e, form)
	if err != nil {
		return err
	}
	if e.Kind == "assignment" {
		err = p.members(e, i, form.usage)
	} else {
		err = p.want(e, i, form)
	}
	if err != nil {
		return err
	}
	st.Expect = e
	return nil
}

// expectOperands reads the target and extra operand of form into e and
// returns the index of the next word.
func (p *lineParser) expectOperands(e *Expect, form expectForm) (int, error) {
	i := 2
	var err error
	if form.target != "" {
		if e.Target, err = p.operand(i, form.target, form.usage, form.checkT); err != nil {
			return i, err
		}
		i++
	}
	if form.arg != "" {
		if e.Arg, err = p.operand(i, form.arg, form.usage, form.checkA); err != nil {
			return i, err
		}
		i++
	}
	return i, nil
}

// isOperator reports whether s is an expect operator.
func isOperator(s string) bool { return s == "==" || s == "contains" }

// operand reads and checks operand i of an expect line.
func (p *lineParser) operand(i int, what, u string, check func(*lineParser, word) (string, error)) (string, error) {
	w, err := p.arg(i, what, u)
	if err != nil {
		return "", err
	}
	if isOperator(w.s) {
		return "", p.errAt(w, "missing %s before %s (usage: %s)", what, w.s, u)
	}
	return check(p, w)
}

// want reads the operator at word i and the expected value after it.
func (p *lineParser) want(e *Expect, i int, form expectForm) error {
	ops := form.ops
	if ops == nil {
		ops = []string{"=="}
	}
	op, err := p.arg(i, "operator "+strings.Join(ops, " or "), form.usage)
	if err != nil {
		return err
	}
	if !slices.Contains(ops, op.s) {
		return p.errAt(op, "want %s, got %q (usage: %s)", strings.Join(ops, " or "), op.s, form.usage)
	}
	e.Op = op.s
	text, off := p.rest(op)
	if text == "" {
		return p.errEnd("missing value after %s (usage: %s)", op.s, form.usage)
	}
	e.Want, e.Col = text, p.col(off)
	ws := p.words[i+1:]
	if e.Kind != "znode" && e.Kind != "error" && len(ws) > 1 {
		return p.errAt(ws[1], "unexpected %q: lists are comma-separated, without spaces (usage: %s)", ws[1].s, form.usage)
	}
	return form.checkWs(p, e, ws)
}

// none handles the value "none": it sets e.None and reports true.
func none(e *Expect, ws []word) bool {
	e.None = ws[0].s == "none"
	if !e.None {
		e.List = strings.Split(e.Want, ",")
	}
	return e.None
}

// wantBroker accepts a broker id or none.
func wantBroker(p *lineParser, e *Expect, ws []word) error {
	if none(e, ws) {
		return nil
	}
	_, err := p.broker(ws[0])
	return err
}

// wantBrokers accepts a list of distinct broker ids or none.
func wantBrokers(p *lineParser, e *Expect, ws []word) error {
	if none(e, ws) {
		return nil
	}
	_, err := p.brokers(ws[0])
	return err
}

// wantCount accepts a whole number.
func wantCount(p *lineParser, e *Expect, ws []word) error {
	e.List = []string{e.Want}
	_, err := p.number(ws[0], e.Kind, 0, maxInt64)
	return err
}

// wantOffsets accepts a list of whole numbers (segment base offsets).
func wantOffsets(p *lineParser, e *Expect, ws []word) error {
	for _, it := range splitList(ws[0]) {
		if _, err := p.number(it, "offset", 0, maxInt64); err != nil {
			return err
		}
	}
	e.List = strings.Split(e.Want, ",")
	return nil
}

// wantCountOrNone accepts a whole number or none.
func wantCountOrNone(p *lineParser, e *Expect, ws []word) error {
	if none(e, ws) {
		return nil
	}
	return wantCount(p, e, ws)
}

// wantRecords accepts a list of record values or none (not after contains).
func wantRecords(p *lineParser, e *Expect, ws []word) error {
	if none(e, ws) {
		if e.Op == "contains" {
			return p.errAt(ws[0], "contains takes records, not none")
		}
		return nil
	}
	for _, it := range splitList(ws[0]) {
		if it.s == "" {
			return p.errAt(it, "empty item in list %q", ws[0].s)
		}
		if _, err := p.record(it); err != nil {
			return err
		}
	}
	return nil
}

// wantError accepts a Kafka error name (NOT_ENOUGH_REPLICAS) or none.
func wantError(p *lineParser, e *Expect, ws []word) error {
	if none(e, ws) {
		return nil
	}
	s := ws[0].s
	bad := s[0] < 'A' || s[0] > 'Z' || strings.TrimLeft(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != ""
	if bad {
		return p.errAt(ws[0], "bad error name %q: want a Kafka error name such as NOT_ENOUGH_REPLICAS", s)
	}
	return nil
}

// wantText accepts any text (znode data); List stays nil.
func wantText(*lineParser, *Expect, []word) error { return nil }

// znodePath checks a ZooKeeper path: /a/b, no empty component.
func (p *lineParser) znodePath(w word) (string, error) {
	s := w.s
	if s != "/" && (!strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.Contains(s, "//")) {
		return "", p.errAt(w, "bad znode path %q: want /a/b/c", s)
	}
	return s, nil
}

// members reads the MEMBER=PARTITION,... operands of expect assignment
// from word i on.
func (p *lineParser) members(e *Expect, i int, u string) error {
	ws := p.words[i:]
	if len(ws) == 0 {
		return p.errEnd("missing MEMBER=PARTITION,... (usage: %s)", u)
	}
	seenM, seenP := map[string]bool{}, map[string]string{}
	for _, w := range ws {
		m, err := p.member(w, u, seenM, seenP)
		if err != nil {
			return err
		}
		e.Members = append(e.Members, m)
	}
	text, off := p.rest(p.words[i-1])
	e.Want, e.Col = text, p.col(off)
	return nil
}

// member reads one MEMBER=PARTITION,... word; seenM and seenP (partition
// -> member) catch members and partitions given twice.
func (p *lineParser) member(w word, u string, seenM map[string]bool, seenP map[string]string) (MemberAssignment, error) {
	if isOperator(w.s) {
		return MemberAssignment{}, p.errAt(w, "expect assignment takes no operator (usage: %s)", u)
	}
	name, list, ok := strings.Cut(w.s, "=")
	if !ok {
		return MemberAssignment{}, p.errAt(w, "unexpected %q: want MEMBER=PARTITION,... (usage: %s)", w.s, u)
	}
	if _, err := p.client(word{s: name, off: w.off}, "consumer"); err != nil {
		return MemberAssignment{}, err
	}
	if seenM[name] {
		return MemberAssignment{}, p.errAt(w, "member %s given twice", name)
	}
	seenM[name] = true
	lw := word{s: list, off: w.off + len(name) + 1}
	parts, err := p.partitions(lw)
	if err != nil {
		return MemberAssignment{}, err
	}
	for _, part := range parts {
		if prev, dup := seenP[part]; dup {
			return MemberAssignment{}, p.errAt(lw, "partition %s assigned to both %s and %s", part, prev, name)
		}
		seenP[part] = name
	}
	return MemberAssignment{Member: name, Partitions: parts}, nil
}
