package scenario

import (
	"strings"

	"github.com/kafkasim/kafkasim/core"
)

// parseCrash parses `crash broker N` and `crash consumer NAME`.
func parseCrash(p *lineParser, st *Step) error {
	w, err := p.arg(1, "broker or consumer", usage["crash"])
	if err != nil {
		return err
	}
	switch w.s {
	case "broker":
		return parseBrokerVerb(p, st)
	case "consumer":
		return parseCrashConsumer(p, st)
	}
	return p.errAt(w, "want \"broker\" or \"consumer\", got %q (usage: %s)", w.s, usage["crash"])
}

// parseCrashConsumer parses `crash consumer NAME`.
func parseCrashConsumer(p *lineParser, st *Step) error {
	w, err := p.arg(2, "consumer NAME", usage["crash"])
	if err != nil {
		return err
	}
	name, err := p.client(w, "consumer")
	if err != nil {
		return err
	}
	if err := p.noMore(3, usage["crash"]); err != nil {
		return err
	}
	st.Cmd = core.CrashConsumer{Consumer: name}
	return nil
}

// parseBrokerVerb parses `VERB broker N` for crash, poweroff, restart,
// pause and resume.
func parseBrokerVerb(p *lineParser, st *Step) error {
	verb := p.words[0].s
	u := usage[verb]
	if err := p.keyword(1, "broker", u); err != nil {
		return err
	}
	w, err := p.arg(2, "broker id N", u)
	if err != nil {
		return err
	}
	b, err := p.broker(w)
	if err != nil {
		return err
	}
	if err := p.noMore(3, u); err != nil {
		return err
	}
	st.Cmd = brokerCommand(verb, b)
	return nil
}

// brokerCommand builds the command of a broker verb.
func brokerCommand(verb string, b int) core.Command {
	switch verb {
	case "crash":
		return core.CrashBroker{Broker: b}
	case "poweroff":
		return core.PowerOff{Broker: b}
	case "restart":
		return core.Restart{Broker: b}
	case "pause":
		return core.Pause{Broker: b}
	}
	return core.Resume{Broker: b}
}

// parseNet parses the net commands.
func parseNet(p *lineParser, st *Step) error {
	sub, err := p.arg(1, "split, heal, delay or drop", usage["net"])
	if err != nil {
		return err
	}
	switch sub.s {
	case "split":
		return parseNetSplit(p, st, sub)
	case "heal":
		st.Cmd = core.NetHeal{}
		return p.noMore(2, usage["net heal"])
	case "delay":
		return parseNetDelay(p, st)
	case "drop":
		return parseNetDrop(p, st)
	}
	return p.errAt(sub, "unknown net command %q (want split, heal, delay or drop)", sub.s)
}

// parseNetSplit parses `net split 1,2 | 3 [| ...]`: groups of hosts
// separated by '|', each a comma-separated list without spaces.
func parseNetSplit(p *lineParser, st *Step, sub word) error {
	segs := strings.Split(p.line[sub.end():], "|")
	groups := make([][]string, 0, len(segs))
	seen := map[string]bool{}
	off := sub.end()
	for i, seg := range segs {
		last := i == len(segs)-1
		g, err := p.splitGroup(word{s: seg, off: off}, last, seen)
		if err != nil {
			return err
		}
		groups = append(groups, g)
		off += len(seg) + 1
	}
	if len(groups) < 2 {
		return p.errEnd("net split needs two or more groups separated by | (usage: %s)", usage["net split"])
	}
	st.Cmd = core.NetSplit{Groups: groups}
	return nil
}

// splitGroup parses one group of net split; seg holds the text up to the
// next '|' (or the end, if last). seen collects hosts across groups.
func (p *lineParser) splitGroup(seg word, last bool, seen map[string]bool) ([]string, error) {
	u := usage["net split"]
	ws := splitWords(seg.s, seg.off)
	switch {
	case len(ws) == 0 && len(seen) == 0 && last:
		return nil, p.errEnd("missing hosts (usage: %s)", u)
	case len(ws) == 0 && last:
		return nil, p.errEnd("missing hosts after | (usage: %s)", u)
	case len(ws) == 0:
		return nil, p.errOff(seg.end(), "missing hosts before | (usage: %s)", u)
	case len(ws) > 1:
		return nil, p.errAt(ws[1], "unexpected %q: separate hosts with commas, groups with | (usage: %s)", ws[1].s, u)
	}
	var hosts []string
	for _, it := range splitList(ws[0]) {
		if it.s == "" {
			return nil, p.errAt(it, "empty item in list %q", ws[0].s)
		}
		h, err := p.host(it)
		if err != nil {
			return nil, err
		}
		if seen[h] {
			return nil, p.errAt(it, "host %s is listed twice", h)
		}
		seen[h] = true
		hosts = append(hosts, h)
	}
	return hosts, nil
}

// link parses the FROM and TO hosts of net delay and net drop.
func (p *lineParser) link(verb string) (string, string, error) {
	u := usage[verb]
	fw, err := p.arg(2, "FROM host", u)
	if err != nil {
		return "", "", err
	}
	tw, err := p.arg(3, "TO host", u)
	if err != nil {
		return "", "", err
	}
	from, err := p.host(fw)
	if err != nil {
		return "", "", err
	}
	to, err := p.host(tw)
	if err == nil && from == to {
		err = p.errAt(tw, "link from %s to itself", from)
	}
	return from, to, err
}

// parseNetDelay parses `net delay FROM TO D`.
func parseNetDelay(p *lineParser, st *Step) error {
	from, to, err := p.link("net delay")
	if err != nil {
		return err
	}
	w, err := p.arg(4, "delay D", usage["net delay"])
	if err != nil {
		return err
	}
	d, err := p.duration(w, 0, core.MaxNetDelay)
	if err != nil {
		return err
	}
	if err := p.noMore(5, usage["net delay"]); err != nil {
		return err
	}
	st.Cmd = core.NetDelay{From: from, To: to, Delay: d}
	return nil
}

// parseNetDrop parses `net drop FROM TO [count=N]`.
func parseNetDrop(p *lineParser, st *Step) error {
	from, to, err := p.link("net drop")
	if err != nil {
		return err
	}
	o, err := p.options(p.words[4:], "net drop", []optSpec{{name: "count"}}, passNone)
	if err != nil {
		return err
	}
	c := core.NetDrop{From: from, To: to}
	if w, ok := o.fields["count"]; ok {
		n, err := p.number(w, "count", 1, maxInt32)
		if err != nil {
			return err
		}
		c.Count = int(n)
	}
	st.Cmd = c
	return nil
}

// parseWait parses `wait D`.
func parseWait(p *lineParser, st *Step) error {
	w, err := p.arg(1, "duration D", usage["wait"])
	if err != nil {
		return err
	}
	d, err := p.duration(w, 0, core.MaxWait)
	if err != nil {
		return err
	}
	st.Cmd = core.Wait{Duration: d}
	return p.noMore(2, usage["wait"])
}

// parseSettle parses `settle [max=D]`.
func parseSettle(p *lineParser, st *Step) error {
	o, err := p.options(p.words[1:], "settle", []optSpec{{name: "max"}}, passNone)
	if err != nil {
		return err
	}
	c := core.Settle{}
	if w, ok := o.fields["max"]; ok {
		if c.Max, err = p.duration(w, 1, core.MaxWait); err != nil {
			return err
		}
	}
	st.Cmd = c
	return nil
}

// parsePrint parses `print [TARGET]`.
func parsePrint(p *lineParser, st *Step) error {
	pr := &Print{Offset: -1}
	if len(p.words) > 1 {
		w := p.words[1]
		switch {
		case allDigits(w.s):
			if _, err := p.broker(w); err != nil {
				return err
			}
		case strings.Contains(w.s, "@"):
			if _, err := p.replica(w); err != nil {
				return err
			}
			if len(p.words) > 2 {
				o, err := p.options(p.words[2:], "print", printOpts, passNone)
				if err != nil {
					return err
				}
				off, err := p.number(o.fields["offset"], "offset", 0, 1<<62)
				if err != nil {
					return err
				}
				pr.Offset = off
			}
		case checkName(w.s, nameChar) != "":
			return p.errAt(w, "bad print target %q: want a partition, a replica, a group, a broker id, znodes or metadata", w.s)
		}
		pr.Target = w.s
	}
	limit := 2
	if pr.Offset >= 0 {
		limit = 3
	}
	if err := p.noMore(limit, usage["print"]); err != nil {
		return err
	}
	st.Print = pr
	return nil
}

var printOpts = []optSpec{{name: "offset"}}
