package scenario

import (
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
)

// usage is each verb's synopsis, quoted in error messages.
var usage = map[string]string{
	"cluster":      "cluster brokers=N [seed=N] [version=" + strings.Join(core.VersionNames(), "|") + "] [metadata=" + strings.Join(core.Accepted().MetadataModes, "|") + "] [racks=R,R,...]",
	"set":          "set KEY=VALUE ...",
	"topic":        "topic create NAME partitions=N rf=N [KEY=VALUE ...], topic alter NAME partitions=N, topic config NAME [KEY=VALUE ...] [delete=KEY,...] or topic delete NAME",
	"topic create": "topic create NAME partitions=N rf=N [min.insync.replicas=N] [assign=1,2,3/2,3,1/...]",
	"topic alter":  "topic alter NAME partitions=N",
	"topic delete": "topic delete NAME",
	"topic config": "topic config NAME [KEY=VALUE ...] [delete=KEY,...]",
	"producer":     "producer NAME [acks=0|1|all] [retries=N] [max.in.flight=N] [idempotence=true|false] [linger.ms=N] [partitioner=" + alternatives("partitioner") + "] [CLIENT.CONFIG=VALUE ...]",
	"produce":      "produce PRODUCER TOPIC value=V [key=K] [partition=N] [count=N]",
	"consumer":     "consumer NAME [group=G] [topics=T,...] [instance=ID] [assignor=" + alternatives("partition.assignment.strategy") + "] [auto.commit=true|false] [auto.commit.interval.ms=N] [offset.reset=" + alternatives("auto.offset.reset") + "] [session.timeout.ms=N] [poll=auto|manual] [CLIENT.CONFIG=VALUE ...]",
	"assign":       "assign CONSUMER PARTITION,...",
	"poll":         "poll CONSUMER [max=N] [timeout=D]",
	"commit":       "commit CONSUMER",
	"close":        "close CONSUMER",
	"crash":        "crash broker N or crash consumer NAME",
	"poweroff":     "poweroff broker N",
	"restart":      "restart broker N",
	"pause":        "pause broker N",
	"resume":       "resume broker N",
	"net":          "net split HOST,... | HOST,... or net heal or net delay FROM TO D or net drop FROM TO [count=N]",
	"net split":    "net split HOST,... | HOST,... [| ...]",
	"net heal":     "net heal",
	"net delay":    "net delay FROM TO D",
	"net drop":     "net drop FROM TO [count=N]",
	"wait":         "wait D",
	"settle":       "settle [max=D]",
	"expect":       "expect KIND ... (KIND: leader, isr, hw, leo, epoch, acked, failed, log, lost, consumed, assignment, generation, committed, znode, violations, error)",
	"print":        "print [PARTITION|GROUP|BROKER|znodes]",
	"elect":        "elect preferred|unclean [PARTITION,...]",
	"records":      "records delete PARTITION OFFSET (OFFSET -1: the high watermark)",
	"zk":           "zk delete /controller [version=N] [session=0xID] [xid=N] [conn=ADDR]",
	"during":       "during +D COMMAND (COMMAND applied D after the start of the settle, poll or commit in progress)",
	"restore":      "restore PART/OF DATA (one part of a cluster restored from disk, as kafkasim serve --data-dir writes it)",
	"outside":      `outside [bytes] {"type":"conn_open"|"conn_close"|"request", ...} (one JSON object: an outside client's command)`,
}

// verbs maps each verb to its parser.
var verbs = map[string]func(*lineParser, *Step) error{
	"cluster":  parseCluster,
	"set":      parseSet,
	"topic":    parseTopic,
	"producer": parseProducer,
	"produce":  parseProduce,
	"consumer": parseConsumer,
	"assign":   parseAssign,
	"poll":     parsePoll,
	"commit":   parseConsumerVerb,
	"close":    parseConsumerVerb,
	"crash":    parseCrash,
	"poweroff": parseBrokerVerb,
	"restart":  parseBrokerVerb,
	"pause":    parseBrokerVerb,
	"resume":   parseBrokerVerb,
	"net":      parseNet,
	"wait":     parseWait,
	"settle":   parseSettle,
	"expect":   parseExpect,
	"print":    parsePrint,
	"elect":    parseElect,
	"records":  parseRecords,
	"zk":       parseZK,
	"outside":  parseOutside,
	"restore":  parseRestore,
}

var clusterOpts = []optSpec{
	{name: "brokers"}, {name: "seed"}, {name: "version"}, {name: "metadata"}, {name: "racks"},
}

// parseCluster parses `cluster brokers=N ...` into Step.Cluster.
func parseCluster(p *lineParser, st *Step) error {
	o, err := p.options(p.words[1:], "cluster", clusterOpts, passNone)
	if err != nil {
		return err
	}
	bw, err := p.required(o, "brokers", "cluster")
	if err != nil {
		return err
	}
	n, err := p.number(bw, "brokers", 1, MaxBrokers)
	if err != nil {
		return err
	}
	c := &core.Options{Brokers: int(n)}
	if err := p.clusterExtras(o, c); err != nil {
		return err
	}
	st.Cluster = c
	return nil
}

// clusterExtras reads cluster's optional seed, version, metadata and racks.
func (p *lineParser) clusterExtras(o opts, c *core.Options) error {
	if w, ok := o.fields["seed"]; ok {
		seed, err := strconv.ParseUint(w.s, 10, 64)
		if err != nil || !allDigits(w.s) {
			return p.errAt(w, "bad seed %q: want a whole number in 0..18446744073709551615", w.s)
		}
		c.Seed = seed
	}
	if w, ok := o.fields["version"]; ok {
		if msg := oneOf(core.VersionNames()...)(w.s); msg != "" {
			return p.errAt(w, "bad version %q: %s", w.s, msg)
		}
		c.Version = w.s
	}
	if w, ok := o.fields["metadata"]; ok {
		if msg := oneOf(core.Accepted().MetadataModes...)(w.s); msg != "" {
			return p.errAt(w, "bad metadata %q: %s", w.s, msg)
		}
		c.Metadata = w.s
	}
	if w, ok := o.fields["racks"]; ok {
		racks, err := p.racks(w, c.Brokers)
		if err != nil {
			return err
		}
		c.Racks = racks
	}
	return nil
}

// racks parses one rack name per broker.
func (p *lineParser) racks(w word, brokers int) ([]string, error) {
	items := splitList(w)
	for _, it := range items {
		if msg := checkName(it.s, nameChar); msg != "" {
			return nil, p.errAt(it, "bad rack %q: %s", it.s, msg)
		}
	}
	if len(items) != brokers {
		return nil, p.errAt(w, "racks lists %s for %s",
			describe(len(items), "rack"), describe(brokers, "broker"))
	}
	racks := make([]string, len(items))
	for i, it := range items {
		racks[i] = it.s
	}
	return racks, nil
}

// parseSet parses `set KEY=VALUE ...`.
func parseSet(p *lineParser, st *Step) error {
	if len(p.words) < 2 {
		return p.errEnd("missing KEY=VALUE (usage: %s)", usage["set"])
	}
	o, err := p.options(p.words[1:], "set", nil, passAll)
	if err != nil {
		return err
	}
	st.Cmd = core.Set{Configs: o.configs}
	return nil
}

// parseTopic parses `topic create ...`, `topic alter ...`, `topic config ...`
// and `topic delete ...`.
func parseTopic(p *lineParser, st *Step) error {
	sub, err := p.arg(1, "create, alter, config or delete", usage["topic"])
	if err != nil {
		return err
	}
	switch sub.s {
	case "create":
		return parseTopicCreate(p, st)
	case "alter":
		return parseTopicAlter(p, st)
	case "delete":
		return parseTopicDelete(p, st)
	case "config":
		return parseTopicConfig(p, st)
	}
	return p.errAt(sub, "unknown topic command %q (want create, alter, config or delete)", sub.s)
}

// parseTopicDelete parses `topic delete NAME`.
func parseTopicDelete(p *lineParser, st *Step) error {
	const verb = "topic delete"
	name, err := p.arg(2, "topic NAME", usage[verb])
	if err != nil {
		return err
	}
	c := core.DeleteTopic{}
	if c.Topic, err = p.topic(name); err != nil {
		return err
	}
	if _, err := p.options(p.words[3:], verb, nil, passNone); err != nil {
		return err
	}
	st.Cmd = c
	return nil
}

var topicCreateOpts = []optSpec{
	{name: "partitions"}, {name: "rf"}, {name: "assign"},
	configOpt("min.insync.replicas", "min.insync.replicas"),
}

// parseTopicCreate parses `topic create NAME partitions=N rf=N ...`.
func parseTopicCreate(p *lineParser, st *Step) error {
	const verb = "topic create"
	name, err := p.arg(2, "topic NAME", usage[verb])
	if err != nil {
		return err
	}
	c := core.CreateTopic{}
	if c.Topic, err = p.topic(name); err != nil {
		return err
	}
	o, err := p.options(p.words[3:], verb, topicCreateOpts, passDotted)
	if err != nil {
		return err
	}
	if c.Partitions, err = p.intField(o, "partitions", verb, 1, maxInt32); err != nil {
		return err
	}
	if c.RF, err = p.intField(o, "rf", verb, 1, MaxBrokers); err != nil {
		return err
	}
	if w, ok := o.fields["assign"]; ok {
		if c.Assign, err = p.assignment(w, c.Partitions, c.RF); err != nil {
			return err
		}
	}
	c.Configs = configs(o.configs)
	st.Cmd = c
	return nil
}

// intField reads the required whole-number option name of verb.
func (p *lineParser) intField(o opts, name, verb string, min, max int64) (int, error) {
	w, err := p.required(o, name, verb)
	if err != nil {
		return 0, err
	}
	n, err := p.number(w, name, min, max)
	return int(n), err
}

// assignment parses 1,2,3/2,3,1: partitions lists of rf distinct brokers.
func (p *lineParser) assignment(w word, partitions, rf int) ([][]int, error) {
	parts := strings.Split(w.s, "/")
	if len(parts) != partitions {
		return nil, p.errAt(w, "assign lists %s for %s",
			describe(len(parts), "replica list"), describe(partitions, "partition"))
	}
	out := make([][]int, len(parts))
	off := w.off
	for i, s := range parts {
		list := word{s: s, off: off}
		bs, err := p.brokers(list)
		if err != nil {
			return nil, err
		}
		if len(bs) != rf {
			return nil, p.errAt(list, "assign gives partition %d %s, want %d (rf=%d)",
				i, describe(len(bs), "replica"), rf, rf)
		}
		out[i] = bs
		off += len(s) + 1
	}
	return out, nil
}

// parseTopicAlter parses `topic alter NAME partitions=N`.
func parseTopicAlter(p *lineParser, st *Step) error {
	const verb = "topic alter"
	name, err := p.arg(2, "topic NAME", usage[verb])
	if err != nil {
		return err
	}
	c := core.AlterTopic{}
	if c.Topic, err = p.topic(name); err != nil {
		return err
	}
	o, err := p.options(p.words[3:], verb, []optSpec{{name: "partitions"}}, passNone)
	if err != nil {
		return err
	}
	if c.Partitions, err = p.intField(o, "partitions", verb, 1, maxInt32); err != nil {
		return err
	}
	st.Cmd = c
	return nil
}

// parseTopicConfig parses `topic config NAME [KEY=VALUE ...] [delete=KEY,...]`:
// kafka-configs.sh --alter --entity-type topics --add-config and
// --delete-config (core.AlterTopicConfigs).
func parseTopicConfig(p *lineParser, st *Step) error {
	const verb = "topic config"
	name, err := p.arg(2, "topic NAME", usage[verb])
	if err != nil {
		return err
	}
	c := core.AlterTopicConfigs{}
	if c.Topic, err = p.topic(name); err != nil {
		return err
	}
	o, err := p.options(p.words[3:], verb, []optSpec{{name: "delete"}}, passDotted)
	if err != nil {
		return err
	}
	c.Set = configs(o.configs)
	if w, ok := o.fields["delete"]; ok {
		for _, k := range strings.Split(w.s, ",") {
			if k == "" {
				return p.errAt(w, "delete= lists an empty config name")
			}
			c.Delete = append(c.Delete, k)
		}
	}
	if c.Set == nil && c.Delete == nil {
		return p.errEnd("nothing to change (usage: %s)", usage[verb])
	}
	st.Cmd = c
	return nil
}

// parseElect parses `elect preferred|unclean [PARTITION,...]`:
// kafka-leader-election.sh --election-type, for the partitions listed or
// (none listed) every partition (core.ElectLeaders).
func parseElect(p *lineParser, st *Step) error {
	w, err := p.arg(1, "preferred or unclean", usage["elect"])
	if err != nil {
		return err
	}
	if w.s != core.ElectPreferred && w.s != core.ElectUnclean {
		return p.errAt(w, "unknown election type %q (want preferred or unclean)", w.s)
	}
	c := core.ElectLeaders{Election: w.s}
	if len(p.words) > 2 {
		if c.Partitions, err = p.partitions(p.words[2]); err != nil {
			return err
		}
		if len(c.Partitions) == 0 {
			c.Partitions = nil
		}
	}
	if err := p.noMore(3, usage["elect"]); err != nil {
		return err
	}
	st.Cmd = c
	return nil
}

// parseRecords parses `records delete PARTITION OFFSET`:
// kafka-delete-records.sh for one partition, its log start offset moved
// up to OFFSET, -1 for its high watermark (core.DeleteRecords).
func parseRecords(p *lineParser, st *Step) error {
	const verb = "records"
	if err := p.keyword(1, "delete", usage[verb]); err != nil {
		return err
	}
	pw, err := p.arg(2, "PARTITION", usage[verb])
	if err != nil {
		return err
	}
	part, err := p.partition(pw)
	if err != nil {
		return err
	}
	ow, err := p.arg(3, "OFFSET", usage[verb])
	if err != nil {
		return err
	}
	off, err := strconv.ParseInt(ow.s, 10, 64)
	if err != nil || off < -1 {
		return p.errAt(ow, "bad offset %q: want N >= 0, or -1 for the high watermark", ow.s)
	}
	if err := p.noMore(4, usage[verb]); err != nil {
		return err
	}
	st.Cmd = core.DeleteRecords{Partition: part, Offset: off}
	return nil
}
