package scenario

import (
	"errors"
	"strings"
	"testing"
)

// lineErrors maps one line (parsed as line 1) to its exact error.
var lineErrors = []struct{ line, want string }{
	{"prodce p1", "1:1: unknown verb \"prodce\""},
	{"producer p1 ack=all", "1:13: unknown option \"ack\" for producer (valid: acks, retries, max.in.flight, idempotence, linger.ms, partitioner, or a Kafka config name with a dot)"},
	{"producer p1 acks=2", "1:18: bad acks \"2\": want 0, 1, all or -1"},
	{"producer p1 acks=", "1:18: missing value after acks="},
	{"producer p1 acks", "1:13: unexpected \"acks\": want KEY=VALUE (usage: producer NAME [acks=0|1|all] [retries=N] [max.in.flight=N] [idempotence=true|false] [linger.ms=N] [partitioner=default|roundrobin|sticky|uniform] [CLIENT.CONFIG=VALUE ...])"},
	{"producer p1 =x", "1:13: missing option name before = in \"=x\""},
	{"producer p1 a!b=1", "1:13: bad option name \"a!b\": use letters, digits, '.', '_' and '-'"},
	{"producer p1 acks=1 acks=all", "1:20: option acks given twice"},
	{"producer p1 max.in.flight=1 max.in.flight.requests.per.connection=2", "1:29: option max.in.flight.requests.per.connection given twice (also as max.in.flight)"},
	{"producer", "1:9: missing producer NAME (usage: producer NAME [acks=0|1|all] [retries=N] [max.in.flight=N] [idempotence=true|false] [linger.ms=N] [partitioner=default|roundrobin|sticky|uniform] [CLIENT.CONFIG=VALUE ...])"},
	{"producer 12", "1:10: bad producer name \"12\": a number would name a broker"},
	{"producer zk", "1:10: bad producer name \"zk\": reserved for a host"},
	{"producer p,1", "1:10: bad producer name \"p,1\": use letters, digits, '.', '_' and '-'"},
	{"producer p1 idempotence=yes", "1:25: bad idempotence \"yes\": want true or false"},
	{"producer p1 retries=-1", "1:21: bad retries \"-1\": want a whole number in 0..2147483647"},
	{"producer p1 retries=99999999999999999999999", "1:21: bad retries \"99999999999999999999999\": want a whole number in 0..2147483647"},
	{"producer p1 retries=007", "1:21: bad retries \"007\": want a whole number in 0..2147483647 without leading zeros"},
	{"wait 10x", "1:6: bad duration \"10x\": want a number with ms, s or m"},
	{"wait 10", "1:6: bad duration \"10\": want a number with ms, s or m"},
	{"wait 1.5s", "1:6: bad duration \"1.5s\": want a number with ms, s or m"},
	{"wait ms", "1:6: bad duration \"ms\": want a number with ms, s or m"},
	{"wait -1s", "1:6: bad duration \"-1s\": want a number with ms, s or m"},
	{"wait 600000m", "1:6: duration \"600000m\" too long (max 1440m)"},
	{"wait 1441m", "1:6: duration \"1441m\" too long (max 1440m)"},
	{"poll c1 timeout=61m", "1:17: duration \"61m\" too long (max 60m)"},
	{"net delay 1 2 3601s", "1:15: duration \"3601s\" too long (max 60m)"},
	{"settle max=1441m", "1:12: duration \"1441m\" too long (max 1440m)"},
	{"wait 99999999999999999999999999s", "1:6: duration \"99999999999999999999999999s\" too long (max 1440m)"},
	{"wait", "1:5: missing duration D (usage: wait D)"},
	{"wait 1s 2s", "1:9: unexpected \"2s\" (usage: wait D)"},
	{"poll c1 timeout=0", "1:17: duration \"0\" too short (min 1ms)"},
	{"poll c1 timeout=10x", "1:17: bad duration \"10x\": want a number with ms, s or m"},
	{"poll c1 max=0", "1:13: bad max \"0\": want a whole number in 1..2147483647"},
	{"settle max=0", "1:12: duration \"0\" too short (min 1ms)"},
	{"settle 1s", "1:8: unexpected \"1s\": want KEY=VALUE (usage: settle [max=D])"},
	{"cluster", "1:8: missing brokers= (usage: cluster brokers=N [seed=N] [version=0.8|0.11|2.8|3.9|4.0] [metadata=zk|kraft] [racks=R,R,...])"},
	{"cluster brokers=0", "1:17: bad brokers \"0\": want a whole number in 1..64"},
	{"cluster brokers=65", "1:17: bad brokers \"65\": want a whole number in 1..64"},
	{"cluster brokers=3 racks=a,b", "1:25: racks lists 2 racks for 3 brokers"},
	{"cluster brokers=2 racks=a,", "1:27: bad rack \"\": empty name"},
	{"cluster brokers=3 version=3.0", "1:27: bad version \"3.0\": want 0.8, 0.11, 2.8, 3.9 or 4.0"},
	{"cluster brokers=3 metadata=etcd", "1:28: bad metadata \"etcd\": want zk or kraft"},
	{"cluster brokers=3 seed=-1", "1:24: bad seed \"-1\": want a whole number in 0..18446744073709551615"},
	{"cluster brokers=3 seed=18446744073709551616", "1:24: bad seed \"18446744073709551616\": want a whole number in 0..18446744073709551615"},
	{"cluster brokers=3 foo=1", "1:19: unknown option \"foo\" for cluster (valid: brokers, seed, version, metadata, racks)"},
	{"cluster brokers=3 foo.bar=1", "1:19: unknown option \"foo.bar\" for cluster (valid: brokers, seed, version, metadata, racks)"},
	{"cluster brokers=x", "1:17: bad brokers \"x\": want a whole number in 1..64"},
	{"set", "1:4: missing KEY=VALUE (usage: set KEY=VALUE ...)"},
	{"set foo", "1:5: unexpected \"foo\": want KEY=VALUE (usage: set KEY=VALUE ...)"},
	{"set a=1 a=2", "1:9: option a given twice"},
	{"set =1", "1:5: missing option name before = in \"=1\""},
	{"topic", "1:6: missing create, alter, config or delete (usage: topic create NAME partitions=N rf=N [KEY=VALUE ...], topic alter NAME partitions=N, topic config NAME [KEY=VALUE ...] [delete=KEY,...] or topic delete NAME)"},
	{"topic drop orders", "1:7: unknown topic command \"drop\" (want create, alter, config or delete)"},
	{"topic delete", "1:13: missing topic NAME (usage: topic delete NAME)"},
	{"topic delete orders now", "1:21: unexpected \"now\": want KEY=VALUE (usage: topic delete NAME)"},
	{"topic create", "1:13: missing topic NAME (usage: topic create NAME partitions=N rf=N [min.insync.replicas=N] [assign=1,2,3/2,3,1/...])"},
	{"topic create orders", "1:20: missing partitions= (usage: topic create NAME partitions=N rf=N [min.insync.replicas=N] [assign=1,2,3/2,3,1/...])"},
	{"topic create orders partitions=3", "1:33: missing rf= (usage: topic create NAME partitions=N rf=N [min.insync.replicas=N] [assign=1,2,3/2,3,1/...])"},
	{"topic create orders rf=3 partitions=0", "1:37: bad partitions \"0\": want a whole number in 1..2147483647"},
	{"topic create or/ders partitions=1 rf=1", "1:14: bad topic name \"or/ders\": use letters, digits, '.', '_' and '-'"},
	{"topic create orders partitions=2 rf=2 assign=1,2", "1:46: assign lists 1 replica list for 2 partitions"},
	{"topic create orders partitions=2 rf=2 assign=1,2/3", "1:50: assign gives partition 1 1 replica, want 2 (rf=2)"},
	{"topic create orders partitions=2 rf=2 assign=1,2/3,3", "1:52: broker 3 listed twice"},
	{"topic create orders partitions=1 rf=1 assign=0", "1:46: bad broker id \"0\": want a whole number in 1..64"},
	{"topic create orders partitions=1 rf=1 assign=", "1:46: missing value after assign="},
	{"topic create orders partitions=1 rf=1 min.insync.replicas=0", "1:59: bad min.insync.replicas \"0\": want a whole number in 1..2147483647"},
	{"topic create orders partitions=1 rf=1 mir=2", "1:39: unknown option \"mir\" for topic create (valid: partitions, rf, assign, min.insync.replicas, or a Kafka config name with a dot)"},
	{"topic alter orders", "1:19: missing partitions= (usage: topic alter NAME partitions=N)"},
	{"topic alter orders partitions=2 rf=3", "1:33: unknown option \"rf\" for topic alter (valid: partitions)"},
	{"produce p1", "1:11: missing TOPIC (usage: produce PRODUCER TOPIC value=V [key=K] [partition=N] [count=N])"},
	{"produce p1 orders", "1:18: missing value= (usage: produce PRODUCER TOPIC value=V [key=K] [partition=N] [count=N])"},
	{"produce p1 orders value=a,b", "1:25: bad record value \"a,b\": no commas (lists of records use them)"},
	{"produce p1 orders value=none", "1:25: bad record value \"none\": it means an empty list in expect"},
	{"produce p1 orders value=m count=0", "1:33: bad count \"0\": want a whole number in 1..1000000"},
	{"produce p1 orders value=m count=1000001", "1:33: bad count \"1000001\": want a whole number in 1..1000000"},
	{"produce p1 orders value=m partition=-1", "1:37: bad partition \"-1\": want a whole number in 0..2147483646"},
	{"produce p1 orders m1", "1:19: unexpected \"m1\": want KEY=VALUE (usage: produce PRODUCER TOPIC value=V [key=K] [partition=N] [count=N])"},
	{"consumer c1 group=", "1:19: missing value after group="},
	{"consumer c1 group=g/1", "1:19: bad group name \"g/1\": use letters, digits, '.', '_' and '-'"},
	{"consumer c1 assignor=foo", "1:22: bad assignor \"foo\": want range, roundrobin, sticky or cooperative-sticky (or several, comma-separated)"},
	{"consumer c1 offset.reset=never", "1:26: bad offset.reset \"never\": want earliest, latest or none"},
	{"consumer c1 assignor=range,", "1:22: bad assignor \"range,\": want range, roundrobin, sticky or cooperative-sticky (or several, comma-separated)"},
	{"producer p1 partitioner=random", "1:25: bad partitioner \"random\": want default, roundrobin, sticky or uniform"},
	{"consumer c1 poll=sometimes", "1:18: bad poll \"sometimes\": want auto or manual"},
	{"consumer c1 grp=g1", "1:13: unknown option \"grp\" for consumer (valid: group, topics, instance, assignor, auto.commit, auto.commit.interval.ms, offset.reset, session.timeout.ms, poll, or a Kafka config name with a dot)"},
	{"assign c1", "1:10: missing PARTITION,... (usage: assign CONSUMER PARTITION,...)"},
	{"assign c1 orders", "1:11: bad partition \"orders\": want TOPIC-N (e.g. orders-0)"},
	{"assign c1 orders-0,orders-0", "1:20: partition orders-0 listed twice"},
	{"assign c1 orders-0,", "1:20: empty item in list \"orders-0,\""},
	{"assign c1 -0", "1:11: bad partition \"-0\": want TOPIC-N (e.g. orders-0)"},
	{"assign c1 orders-x", "1:11: bad partition \"orders-x\": want TOPIC-N (e.g. orders-0)"},
	{"assign c1 orders-01", "1:11: bad partition \"orders-01\": want TOPIC-N (e.g. orders-0)"},
	{"assign c1 orders-0 orders-1", "1:20: unexpected \"orders-1\" (usage: assign CONSUMER PARTITION,...)"},
	{"commit", "1:7: missing CONSUMER (usage: commit CONSUMER)"},
	{"commit c1 c2", "1:11: unexpected \"c2\" (usage: commit CONSUMER)"},
	{"crash", "1:6: missing broker or consumer (usage: crash broker N or crash consumer NAME)"},
	{"crash c1", "1:7: want \"broker\" or \"consumer\", got \"c1\" (usage: crash broker N or crash consumer NAME)"},
	{"crash broker", "1:13: missing broker id N (usage: crash broker N or crash consumer NAME)"},
	{"crash broker 0", "1:14: bad broker id \"0\": want a whole number in 1..64"},
	{"crash broker 1 2", "1:16: unexpected \"2\" (usage: crash broker N or crash consumer NAME)"},
	{"crash consumer", "1:15: missing consumer NAME (usage: crash broker N or crash consumer NAME)"},
	{"restart 1", "1:9: want \"broker\", got \"1\" (usage: restart broker N)"},
	{"restart broker x", "1:16: bad broker id \"x\": want a whole number in 1..64"},
	{"net", "1:4: missing split, heal, delay or drop (usage: net split HOST,... | HOST,... or net heal or net delay FROM TO D or net drop FROM TO [count=N])"},
	{"net foo", "1:5: unknown net command \"foo\" (want split, heal, delay or drop)"},
	{"net heal now", "1:10: unexpected \"now\" (usage: net heal)"},
	{"net split", "1:10: missing hosts (usage: net split HOST,... | HOST,... [| ...])"},
	{"net split 1,2", "1:14: net split needs two or more groups separated by | (usage: net split HOST,... | HOST,... [| ...])"},
	{"net split 1,2 |", "1:16: missing hosts after | (usage: net split HOST,... | HOST,... [| ...])"},
	{"net split | 3", "1:11: missing hosts before | (usage: net split HOST,... | HOST,... [| ...])"},
	{"net split 1,2 | 2", "1:17: host 2 is listed twice"},
	{"net split 1,1 | 2", "1:13: host 1 is listed twice"},
	{"net split 1 2 | 3", "1:13: unexpected \"2\": separate hosts with commas, groups with | (usage: net split HOST,... | HOST,... [| ...])"},
	{"net split 1,,2 | 3", "1:13: empty item in list \"1,,2\""},
	{"net split 1,2 || 3", "1:16: missing hosts before | (usage: net split HOST,... | HOST,... [| ...])"},
	{"net split 0 | 1", "1:11: bad broker id \"0\": want a whole number in 1..64"},
	{"net split a/b | 1", "1:11: bad host \"a/b\": want a broker id, a client name, zk or controller"},
	{"net delay 1", "1:12: missing TO host (usage: net delay FROM TO D)"},
	{"net delay 1 2", "1:14: missing delay D (usage: net delay FROM TO D)"},
	{"net delay 1 1 5ms", "1:13: link from 1 to itself"},
	{"net delay 1 2 5", "1:15: bad duration \"5\": want a number with ms, s or m"},
	{"net delay 1 2 5ms x", "1:19: unexpected \"x\" (usage: net delay FROM TO D)"},
	{"net drop 1 2 count=0", "1:20: bad count \"0\": want a whole number in 1..2147483647"},
	{"net drop 1 2 5", "1:14: unexpected \"5\": want KEY=VALUE (usage: net drop FROM TO [count=N])"},
	{"expect", "1:7: missing KIND (usage: expect KIND ... (KIND: leader, isr, hw, leo, epoch, acked, failed, log, lost, consumed, assignment, generation, committed, znode, violations, error))"},
	{"expect foo x", "1:8: unknown expect kind \"foo\" (want leader, isr, hw, leo, epoch, acked, failed, log, lost, consumed, assignment, generation, committed, znode, violations or error)"},
	{"expect leader", "1:14: missing PARTITION (usage: expect leader PARTITION == BROKER|none)"},
	{"expect leader == 1", "1:15: missing PARTITION before == (usage: expect leader PARTITION == BROKER|none)"},
	{"expect leader orders-0", "1:23: missing operator == (usage: expect leader PARTITION == BROKER|none)"},
	{"expect leader orders-0 = 1", "1:24: want ==, got \"=\" (usage: expect leader PARTITION == BROKER|none)"},
	{"expect leader orders-0 ==", "1:26: missing value after == (usage: expect leader PARTITION == BROKER|none)"},
	{"expect leader orders-0 == x", "1:27: bad broker id \"x\": want a whole number in 1..64"},
	{"expect leader orders-0 == 0", "1:27: bad broker id \"0\": want a whole number in 1..64"},
	{"expect leader orders-0 == 1 2", "1:29: unexpected \"2\": lists are comma-separated, without spaces (usage: expect leader PARTITION == BROKER|none)"},
	{"expect isr orders-0 == 1,1", "1:26: broker 1 listed twice"},
	{"expect isr orders-0 == 1, 2", "1:27: unexpected \"2\": lists are comma-separated, without spaces (usage: expect isr PARTITION == BROKER,...|none)"},
	{"expect hw orders-0 == none", "1:23: bad hw \"none\": want a whole number in 0..9223372036854775807"},
	{"expect hw orders-0 == -1", "1:23: bad hw \"-1\": want a whole number in 0..9223372036854775807"},
	{"expect leo orders-0 == 5", "1:12: bad replica \"orders-0\": want TOPIC-N@BROKER (e.g. orders-0@2)"},
	{"expect leo orders-0@ == 5", "1:21: bad broker id \"\": want a whole number in 1..64"},
	{"expect leo orders-0@0 == 5", "1:21: bad broker id \"0\": want a whole number in 1..64"},
	{"expect epoch orders == 1", "1:14: bad partition \"orders\": want TOPIC-N (e.g. orders-0)"},
	{"expect acked p1 == m1,,m2", "1:23: empty item in list \"m1,,m2\""},
	{"expect acked p1 == m1,none", "1:23: bad record value \"none\": it means an empty list in expect"},
	{"expect failed p1 == X", "1:18: missing RECORD before == (usage: expect failed PRODUCER RECORD == ERROR_NAME|none)"},
	{"expect failed p1 m7 == not_enough", "1:24: bad error name \"not_enough\": want a Kafka error name such as NOT_ENOUGH_REPLICAS"},
	{"expect lost m1", "1:13: want ==, got \"m1\" (usage: expect lost == RECORD,...|none)"},
	{"expect lost == ", "1:15: missing value after == (usage: expect lost == RECORD,...|none)"},
	{"expect hw t-0 contains 1", "1:15: want ==, got \"contains\" (usage: expect hw PARTITION == N)"},
	{"expect consumed c1 contains none", "1:29: contains takes records, not none"},
	{"expect assignment g1", "1:21: missing MEMBER=PARTITION,... (usage: expect assignment GROUP MEMBER=PARTITION,... ...)"},
	{"expect assignment g1 == c1=orders-0", "1:22: expect assignment takes no operator (usage: expect assignment GROUP MEMBER=PARTITION,... ...)"},
	{"expect assignment g1 c1", "1:22: unexpected \"c1\": want MEMBER=PARTITION,... (usage: expect assignment GROUP MEMBER=PARTITION,... ...)"},
	{"expect assignment g1 c1=orders-0 c1=orders-1", "1:34: member c1 given twice"},
	{"expect assignment g1 c1=orders-0 c2=orders-0", "1:37: partition orders-0 assigned to both c1 and c2"},
	{"expect assignment g1 =orders-0", "1:22: bad consumer name \"\": empty name"},
	{"expect generation g1 == x", "1:25: bad generation \"x\": want a whole number in 0..9223372036854775807"},
	{"expect committed g1 == 4", "1:21: missing PARTITION before == (usage: expect committed GROUP PARTITION == OFFSET|none)"},
	{"expect committed g1 orders-0 == x", "1:33: bad committed \"x\": want a whole number in 0..9223372036854775807"},
	{"expect znode brokers contains x", "1:14: bad znode path \"brokers\": want /a/b/c"},
	{"expect znode /a/ == x", "1:14: bad znode path \"/a/\": want /a/b/c"},
	{"expect znode /a contains", "1:25: missing value after contains (usage: expect znode PATH == TEXT or expect znode PATH contains TEXT)"},
	{"expect znode /a has x", "1:17: want == or contains, got \"has\" (usage: expect znode PATH == TEXT or expect znode PATH contains TEXT)"},
	{"print a b", "1:9: unexpected \"b\" (usage: print [PARTITION|GROUP|BROKER|znodes])"},
	{"print 0", "1:7: bad broker id \"0\": want a whole number in 1..64"},
	{"print a/b", "1:7: bad print target \"a/b\": want a partition, a replica, a group, a broker id, znodes or metadata"},
	{"wait\t1x", "1:6: bad duration \"1x\": want a number with ms, s or m"},
	{"  wait 1x", "1:8: bad duration \"1x\": want a number with ms, s or m"},
	{"wait 1s ÿ", "1:9: unexpected \"ÿ\" (usage: wait D)"},
	{"crash consumer 1", "1:16: bad consumer name \"1\": a number would name a broker"},
	{"crash consumer c1 x", "1:19: unexpected \"x\" (usage: crash broker N or crash consumer NAME)"},
	{"net delay x/y 1 1s", "1:11: bad host \"x/y\": want a broker id, a client name, zk or controller"},
	{"net drop 1 x/y", "1:12: bad host \"x/y\": want a broker id, a client name, zk or controller"},
	{"net drop 1 2 count=x", "1:20: bad count \"x\": want a whole number in 1..2147483647"},
	{"topic alter or/ders partitions=1", "1:13: bad topic name \"or/ders\": use letters, digits, '.', '_' and '-'"},
	{"topic alter", "1:12: missing topic NAME (usage: topic alter NAME partitions=N)"},
	{"topic alter orders partitions=x", "1:31: bad partitions \"x\": want a whole number in 1..2147483647"},
	{"expect leo orders@1 == 5", "1:12: bad partition \"orders\": want TOPIC-N (e.g. orders-0)"},
	{"poll c1 max=1 foo=1", "1:15: unknown option \"foo\" for poll (valid: max, timeout)"},
	{"poll 1", "1:6: bad consumer name \"1\": a number would name a broker"},
	{"poll c1 timeout=1x", "1:17: bad duration \"1x\": want a number with ms, s or m"},
	{"poll c1 max=x", "1:13: bad max \"x\": want a whole number in 1..2147483647"},
	{"consumer 1", "1:10: bad consumer name \"1\": a number would name a broker"},
	{"consumer c1 foo=1", "1:13: unknown option \"foo\" for consumer (valid: group, topics, instance, assignor, auto.commit, auto.commit.interval.ms, offset.reset, session.timeout.ms, poll, or a Kafka config name with a dot)"},
	{"assign 1 orders-0", "1:8: bad consumer name \"1\": a number would name a broker"},
	{"expect failed p1 m,7 == X", "1:18: bad record value \"m,7\": no commas (lists of records use them)"},
	{"expect failed p1 m7 == ,", "1:24: bad error name \",\": want a Kafka error name such as NOT_ENOUGH_REPLICAS"},
	{"expect assignment g1 c1=orders-0 c2=x", "1:37: bad partition \"x\": want TOPIC-N (e.g. orders-0)"},
	{"net drop 1 2 foo=1", "1:14: unknown option \"foo\" for net drop (valid: count)"},
	{"wait 1s\x07", "1:8: control character U+0007 not allowed"},
	{"wait \xff1s", "1:6: invalid UTF-8 byte 0xff"},
	{"wait 1s\rx", "1:8: control character U+000D not allowed"},
	{"wait 1s\u0085", "1:8: control character U+0085 not allowed"},
	{"expect hw 订单-0 == 1", "1:11: bad topic name \"订单\": use letters, digits, '.', '_' and '-'"},
	{"topic create " + strings.Repeat("t", 250) + " partitions=1 rf=1", "1:14: bad topic name \"" + strings.Repeat("t", 250) + "\": longer than 249 bytes"},
	{"topic create .. partitions=1 rf=1", "1:14: bad topic name \"..\": not a name"},
	{"wait 01s", "1:6: bad duration \"01s\": want a number with ms, s or m"},
	{"print 65", "1:7: bad broker id \"65\": want a whole number in 1..64"},
	{"expect failed p1 m7 == 1X", "1:24: bad error name \"1X\": want a Kafka error name such as NOT_ENOUGH_REPLICAS"},
	{"expect 订单 x", "1:8: unknown expect kind \"订单\" (want " + expectKinds + ")"},
	{"订单 x", "1:1: unknown verb \"订单\""},
	{"订单 x 1x", "1:1: unknown verb \"订单\""},
	{"wait 订单", "1:6: bad duration \"订单\": want a number with ms, s or m"},
	{"expect leader 订-0 == 1 # 注释", "1:15: bad topic name \"订\": use letters, digits, '.', '_' and '-'"},
	{"set 订单=1", "1:5: bad option name \"订单\": use letters, digits, '.', '_' and '-'"},
	{"producer 生产者 acks=x", "1:19: bad acks \"x\": want 0, 1, all or -1"},
	{"wait \"1s # x\"", "1:6: bad duration \"\\\"1s\": want a number with ms, s or m"},
}

func TestLineErrors(t *testing.T) {
	for _, tt := range lineErrors {
		st, err := ParseLine(tt.line, 1)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%q: got %+v, %v; want *Error %s", tt.line, st, err, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.line, err, tt.want)
		}
	}
}

func TestScriptErrors(t *testing.T) {
	long := strings.Repeat("x", MaxLineBytes+1)
	tests := []struct{ src, want string }{
		{"cluster brokers=3\n\n# c\nwait 1s\nwait 10x\nwait 1y", "5:6: bad duration \"10x\": want a number with ms, s or m"},
		{"wait 1s\r\nprodce p1\r\n", "2:1: unknown verb \"prodce\""},
		{"\uFEFFprodce", "1:1: unknown verb \"prodce\""},
		{"wait 1s\n" + long, "2:1: line too long: 65537 bytes (max 65536)"},
		{"# " + strings.Repeat("x", MaxLineBytes-2), ""},
		{strings.Repeat("\n", MaxLines), ""},
		{strings.Repeat("\n", MaxLines) + "x", "1000001:1: too many lines (max 1000000)"},
		{strings.Repeat("#", MaxScriptBytes+1), "1:1: script too large: 16777217 bytes (max 16777216)"},
	}
	for _, tt := range tests {
		s, err := Parse(tt.src)
		name := tt.src
		if len(name) > 40 {
			name = name[:40]
		}
		if tt.want == "" {
			if err != nil || s == nil {
				t.Errorf("%q: got %v", name, err)
			}
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) || err.Error() != tt.want {
			t.Errorf("%q:\n got %v\nwant %s", name, err, tt.want)
		}
	}
}

func TestErrorFields(t *testing.T) {
	_, err := ParseLine("producer p1 ack=all", 12)
	pe, ok := err.(*Error)
	if !ok || pe.Line != 12 || pe.Col != 13 || !strings.HasPrefix(pe.Msg, `unknown option "ack" for producer (valid: acks, retries,`) {
		t.Fatalf("got %#v", err)
	}
}
