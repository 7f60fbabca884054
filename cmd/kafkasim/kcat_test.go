package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// freeBase finds n consecutive free loopback ports.
func freeBase(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		base := 20000 + rand.IntN(30000)
		ok := true
		for i := 0; i < n && ok; i++ {
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(base+i)))
			if err != nil {
				ok = false
				continue
			}
			ln.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free ports")
	return 0
}

// kcat runs Debian's kcat (librdkafka) with a time limit.
func kcat(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kcat", args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kcat %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// needKcat skips without kcat, except in CI, which installs it.
func needKcat(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("kcat"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("kcat is not installed (.ci/run installs it)")
		}
		t.Skip("kcat is not installed")
	}
}

// serveKcat serves scenario (or, "", the default room: 3 brokers of the
// newest preset) with Kafka listeners on free ports and returns broker
// 1's address.
func serveKcat(t *testing.T, scenario string) string {
	t.Helper()
	base := freeBase(t, 3)
	args := []string{"--kafka-listen", fmt.Sprintf("127.0.0.1:%d", base)}
	if scenario != "" {
		scen := filepath.Join(t.TempDir(), "kcat.ksim")
		if err := os.WriteFile(scen, []byte(scenario), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--scenario", scen)
	}
	_, banner := startServe(t, args...)
	if !strings.Contains(banner, fmt.Sprintf("kcat -b 127.0.0.1:%d -L", base)) {
		t.Errorf("banner does not say how to reach the brokers:\n%s", banner)
	}
	return fmt.Sprintf("127.0.0.1:%d", base)
}

// kcatLeaders lists topic with kcat -L until its partitions all have a
// leader (they are elected a few hundred ms in) and returns the listing.
func kcatLeaders(t *testing.T, b, topic string, partitions int) string {
	t.Helper()
	var md string
	for i := 0; i < 50; i++ {
		md = kcat(t, "", "-b", b, "-L", "-t", topic)
		if strings.Count(md, "leader ") == partitions && !strings.Contains(md, "leader -1") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	return md
}

// kcatRoundTrip lists the cluster (-L), produces 30 records (-P) to
// topic, which has that many partitions once it exists, and reads them
// back alone (-C) and in a group (-G).
func kcatRoundTrip(t *testing.T, b, topic string, partitions int) {
	t.Helper()
	md := kcatLeaders(t, b, topic, partitions)
	port, _ := strconv.Atoi(b[strings.LastIndexByte(b, ':')+1:])
	for id := 1; id <= 3; id++ {
		if !strings.Contains(md, fmt.Sprintf("broker %d at 127.0.0.1:%d", id, port+id-1)) {
			t.Fatalf("kcat -L does not list broker %d at its port:\n%s", id, md)
		}
	}
	if !strings.Contains(md, fmt.Sprintf(`topic %q with %d partitions`, topic, partitions)) {
		t.Fatalf("kcat -L:\n%s", md)
	}
	var lines []string
	for i := 0; i < 30; i++ {
		lines = append(lines, fmt.Sprintf("m%02d", i))
	}
	kcat(t, strings.Join(lines, "\n")+"\n", "-b", b, "-P", "-t", topic, "-X", "acks=all")
	got := strings.Fields(kcat(t, "", "-b", b, "-C", "-t", topic, "-o", "beginning", "-e", "-q"))
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(lines, ",") {
		t.Fatalf("kcat -C read %v, want %v", got, lines)
	}
	g := strings.Fields(kcat(t, "", "-b", b, "-G", "grp", topic, "-o", "beginning", "-e", "-q", "-X", "auto.offset.reset=earliest"))
	sort.Strings(g)
	if strings.Join(g, ",") != strings.Join(lines, ",") {
		t.Fatalf("kcat -G read %v, want %v", g, lines)
	}
}

// TestKcat: `kafkasim serve` advertises every simulated broker to a real
// librdkafka client: kcat lists the cluster (-L), produces (-P), consumes
// (-C) and consumes in a group (-G) against it.
func TestKcat(t *testing.T) {
	needKcat(t)
	b := serveKcat(t, "cluster brokers=3 seed=3 version=3.9 metadata=kraft\ntopic create orders partitions=3 rf=3\n")
	kcatRoundTrip(t, b, "orders", 3)
}

// TestKcatDefaultRoom: kcat against what plain `kafkasim serve` gives,
// the default room (3 brokers of the newest preset, 4.0, no topics):
// kcat -L's metadata request creates the topic (auto.create.topics
// .enable, num.partitions 1), and -P, -C and -G work with librdkafka
// 2.0.2 as against a real 4.0.1 or later broker.
// librdkafka before 2.11 enables its BrokerBalancedConsumer and SASL
// GSSAPI features only if the broker has JoinGroup v0 (rd_kafka_feature
// _map), which 4.0.0 removed and 4.0.1 restored (KAFKA-19444); kcat
// -d feature logs what it enabled.
func TestKcatDefaultRoom(t *testing.T) {
	needKcat(t)
	b := serveKcat(t, "")
	kcatRoundTrip(t, b, "orders", 1)
	feat := kcat(t, "", "-b", b, "-L", "-t", "orders", "-d", "feature")
	for _, f := range []string{"BrokerBalancedConsumer", "Sasl", "LZ4", "MsgVer2", "ZSTD"} {
		if !strings.Contains(feat, "Enabling feature "+f+"\n") {
			t.Errorf("librdkafka did not enable feature %s against the default room:\n%s", f, feat)
		}
	}
}

// storedCodecs fetches partition 0 of topic from its leader and returns
// each batch's compression codec (the low three bits of a v2 batch's
// attributes). kafkasim serves a real client's batch back as it stored
// it, as Kafka does with compression.type=producer (docs/kafka.md,
// Records), so this is the codec the log keeps, which a consumer reading
// the values back cannot tell.
func storedCodecs(t *testing.T, b, topic string) []int16 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	mreq := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	mreq.Topics = append(mreq.Topics, mt)
	md, err := mreq.RequestWith(ctx, cl)
	if err != nil || len(md.Topics) != 1 || len(md.Topics[0].Partitions) == 0 {
		t.Fatalf("metadata of %s: %v %+v", topic, err, md)
	}
	mp := md.Topics[0].Partitions[0]
	freq := kmsg.NewPtrFetchRequest()
	freq.ReplicaID, freq.MaxBytes, freq.SessionEpoch = -1, 1<<20, -1
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic, ft.TopicID = topic, md.Topics[0].TopicID
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.Partition, fp.CurrentLeaderEpoch, fp.LogStartOffset, fp.PartitionMaxBytes = 0, mp.LeaderEpoch, -1, 1<<20
	ft.Partitions = append(ft.Partitions, fp)
	freq.Topics = append(freq.Topics, ft)
	r, err := cl.Broker(int(mp.Leader)).Request(ctx, freq)
	if err != nil {
		t.Fatalf("fetch %s: %v", topic, err)
	}
	resp := r.(*kmsg.FetchResponse)
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("fetch %s: %+v", topic, resp)
	}
	var codecs []int16
	for data := resp.Topics[0].Partitions[0].RecordBatches; len(data) >= 12; {
		n := int(binary.BigEndian.Uint32(data[8:])) + 12
		var rb kmsg.RecordBatch
		if n > len(data) || rb.ReadFrom(data[:n]) != nil {
			t.Fatalf("fetch %s: a batch does not parse", topic)
		}
		codecs = append(codecs, rb.Attributes&7)
		data = data[n:]
	}
	return codecs
}

// TestKcatCompression: librdkafka (2.0.2 here) compresses with gzip,
// snappy or lz4 only if the broker's Produce range reaches down to v0,
// and with zstd if it holds a version up to v7 and the broker has
// Produce v7 and Fetch v10 (rd_kafka_msgset_writer_select_MsgVersion's
// compr_req, rd_kafka_feature_map's RD_KAFKA_FEATURE_ZSTD; librdkafka
// issue #4956); else it logs "Broker does not support compression type"
// and sends the batch uncompressed. Kafka 3.9 advertises Produce from
// v0, and so does 4.0 for this reason (KAFKA-18659) though it refuses
// v0-v2 requests, so against either preset kcat -z stores its batches
// with that codec.
func TestKcatCompression(t *testing.T) {
	needKcat(t)
	codecs := []string{"none", "gzip", "snappy", "lz4", "zstd"}
	for _, preset := range []string{"3.9", "4.0"} {
		t.Run(preset, func(t *testing.T) {
			scen := "cluster brokers=3 seed=3 version=" + preset + " metadata=kraft\n"
			for _, c := range codecs[1:] {
				scen += "topic create " + c + " partitions=1 rf=3\n"
			}
			b := serveKcat(t, scen)
			// Values that compress: librdkafka sends a batch that
			// compression does not shrink uncompressed.
			in := strings.Repeat(strings.Repeat("kafkasim ", 20)+"\n", 10)
			for want, c := range codecs {
				if want == 0 {
					continue
				}
				kcatLeaders(t, b, c, 1)
				kcat(t, in, "-b", b, "-P", "-t", c, "-z", c, "-X", "acks=all")
				if got := storedCodecs(t, b, c); len(got) != 1 || got[0] != int16(want) {
					t.Errorf("kcat -z %s: stored batches with codecs %v, want [%d] (%s)", c, got, want, c)
				}
			}
		})
	}
}
