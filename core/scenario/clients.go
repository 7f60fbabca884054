package scenario

import "github.com/kafkasim/kafkasim/core"

// configOpt is an option stored under a Kafka config name, accepting
// what core accepts for it.
func configOpt(name, key string) optSpec { return optSpec{name: name, key: key, check: coreCheck(key)} }

var producerOpts = []optSpec{
	configOpt("acks", "acks"),
	configOpt("retries", "retries"),
	configOpt("max.in.flight", "max.in.flight.requests.per.connection"),
	configOpt("idempotence", "enable.idempotence"),
	configOpt("linger.ms", "linger.ms"),
	configOpt("partitioner", "partitioner"),
}

// parseProducer parses `producer NAME [options]`.
func parseProducer(p *lineParser, st *Step) error {
	w, err := p.arg(1, "producer NAME", usage["producer"])
	if err != nil {
		return err
	}
	c := core.NewProducer{}
	if c.Name, err = p.client(w, "producer"); err != nil {
		return err
	}
	o, err := p.options(p.words[2:], "producer", producerOpts, passDotted)
	if err != nil {
		return err
	}
	c.Configs = configs(o.configs)
	st.Cmd = c
	return nil
}

var produceOpts = []optSpec{{name: "value"}, {name: "key"}, {name: "partition"}, {name: "count"}}

// parseProduce parses `produce PRODUCER TOPIC value=V [key=K] ...`.
func parseProduce(p *lineParser, st *Step) error {
	c := core.Produce{}
	w, err := p.arg(1, "PRODUCER", usage["produce"])
	if err == nil {
		c.Producer, err = p.client(w, "producer")
	}
	if err == nil {
		w, err = p.arg(2, "TOPIC", usage["produce"])
	}
	if err == nil {
		c.Topic, err = p.topic(w)
	}
	if err != nil {
		return err
	}
	o, err := p.options(p.words[3:], "produce", produceOpts, passNone)
	if err != nil {
		return err
	}
	if err := p.produceFields(o, &c); err != nil {
		return err
	}
	st.Cmd = c
	return nil
}

// produceFields reads produce's value, key, partition and count.
func (p *lineParser) produceFields(o opts, c *core.Produce) error {
	w, err := p.required(o, "value", "produce")
	if err == nil {
		c.Value, err = p.record(w)
	}
	if err != nil {
		return err
	}
	if w, ok := o.fields["key"]; ok {
		c.Key = &w.s
	}
	if w, ok := o.fields["partition"]; ok {
		n, err := p.number(w, "partition", 0, maxInt32-1)
		if err != nil {
			return err
		}
		part := int(n)
		c.Partition = &part
	}
	if w, ok := o.fields["count"]; ok {
		n, err := p.number(w, "count", 1, maxCount)
		if err != nil {
			return err
		}
		c.Count = int(n)
	}
	return nil
}

var consumerOpts = []optSpec{
	{name: "group"},
	{name: "topics"},
	{name: "instance", key: "group.instance.id", check: instanceID},
	configOpt("assignor", "partition.assignment.strategy"),
	configOpt("auto.commit", "enable.auto.commit"),
	configOpt("auto.commit.interval.ms", "auto.commit.interval.ms"),
	configOpt("offset.reset", "auto.offset.reset"),
	configOpt("session.timeout.ms", "session.timeout.ms"),
	configOpt("poll", "poll"),
}

// instanceID checks a group.instance.id.
func instanceID(s string) string { return checkName(s, nameChar) }

// parseConsumer parses `consumer NAME [group=G] [options]`.
func parseConsumer(p *lineParser, st *Step) error {
	w, err := p.arg(1, "consumer NAME", usage["consumer"])
	if err != nil {
		return err
	}
	c := core.NewConsumer{}
	if c.Name, err = p.client(w, "consumer"); err != nil {
		return err
	}
	o, err := p.options(p.words[2:], "consumer", consumerOpts, passDotted)
	if err != nil {
		return err
	}
	if g, ok := o.fields["group"]; ok {
		if c.Group, err = p.group(g); err != nil {
			return err
		}
	}
	if w, ok := o.fields["topics"]; ok {
		if c.Topics, err = p.topics(w); err != nil {
			return err
		}
	}
	c.Configs = configs(o.configs)
	st.Cmd = c
	return nil
}

// consumerArg reads the consumer name at word 1.
func (p *lineParser) consumerArg(verb string) (string, error) {
	w, err := p.arg(1, "CONSUMER", usage[verb])
	if err != nil {
		return "", err
	}
	return p.client(w, "consumer")
}

// parseAssign parses `assign CONSUMER PARTITION,...`.
func parseAssign(p *lineParser, st *Step) error {
	name, err := p.consumerArg("assign")
	if err != nil {
		return err
	}
	w, err := p.arg(2, "PARTITION,...", usage["assign"])
	if err != nil {
		return err
	}
	parts, err := p.partitions(w)
	if err != nil {
		return err
	}
	if err := p.noMore(3, usage["assign"]); err != nil {
		return err
	}
	st.Cmd = core.Assign{Consumer: name, Partitions: parts}
	return nil
}

// parsePoll parses `poll CONSUMER [max=N] [timeout=D]`.
func parsePoll(p *lineParser, st *Step) error {
	name, err := p.consumerArg("poll")
	if err != nil {
		return err
	}
	o, err := p.options(p.words[2:], "poll", []optSpec{{name: "max"}, {name: "timeout"}}, passNone)
	if err != nil {
		return err
	}
	c := core.Poll{Consumer: name}
	if w, ok := o.fields["max"]; ok {
		n, err := p.number(w, "max", 1, maxInt32)
		if err != nil {
			return err
		}
		c.Max = int(n)
	}
	if w, ok := o.fields["timeout"]; ok {
		if c.Timeout, err = p.duration(w, 1, core.MaxPollTimeout); err != nil {
			return err
		}
	}
	st.Cmd = c
	return nil
}

// parseConsumerVerb parses `commit CONSUMER` and `close CONSUMER`.
func parseConsumerVerb(p *lineParser, st *Step) error {
	verb := p.words[0].s
	name, err := p.consumerArg(verb)
	if err != nil {
		return err
	}
	if err := p.noMore(2, usage[verb]); err != nil {
		return err
	}
	if verb == "commit" {
		st.Cmd = core.Commit{Consumer: name}
	} else {
		st.Cmd = core.CloseConsumer{Consumer: name}
	}
	return nil
}
