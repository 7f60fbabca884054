package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/internal/kafkawire"
)

// metadataHosts asks addr for Metadata v1 and returns "host:port" of
// every broker it names, in its order.
func metadataHosts(t *testing.T, addr string) []string {
	t.Helper()
	resp, err := kafkawire.Metadata(addr)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range resp.Brokers {
		out = append(out, fmt.Sprintf("%s:%d", b.Host, b.Port))
	}
	return out
}

// TestServeKafkaAdvertise: --kafka-advertise names the host Metadata
// gives clients (each broker with its own port); an empty listen host
// listens everywhere and advertises this machine's host name, as Kafka
// does; 0.0.0.0 without --kafka-advertise is refused, as Kafka refuses
// to start advertising the meta-address.
func TestServeKafkaAdvertise(t *testing.T) {
	base := freeBase(t, 3)
	scen := ordersScenario(t)
	_, out, stop := serveAt(t, "--scenario", scen, "--kafka-listen", fmt.Sprintf("127.0.0.1:%d", base), "--kafka-advertise", "kafka.example")
	want := fmt.Sprintf("kafka.example:%d kafka.example:%d kafka.example:%d", base, base+1, base+2)
	if got := strings.Join(metadataHosts(t, fmt.Sprintf("127.0.0.1:%d", base)), " "); got != want {
		t.Errorf("advertised %s, want %s", got, want)
	}
	if !strings.Contains(out.String(), fmt.Sprintf("kcat -b kafka.example:%d -L", base)) {
		t.Errorf("banner does not name the advertised address:\n%s", out.String())
	}
	stop()

	name, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	base = freeBase(t, 3)
	_, _, stop = serveAt(t, "--scenario", scen, "--kafka-listen", fmt.Sprintf(":%d", base))
	if got := metadataHosts(t, fmt.Sprintf("127.0.0.1:%d", base)); len(got) != 3 || got[0] != fmt.Sprintf("%s:%d", name, base) {
		t.Errorf("--kafka-listen :%d advertised %v, want the host name %s", base, got, name)
	}
	stop()

	for _, args := range [][]string{
		{"--kafka-listen", "0.0.0.0:9092"},
		{"--kafka-listen", "127.0.0.1:9092", "--kafka-advertise", "0.0.0.0"},
		{"--kafka-listen", "127.0.0.1:9092", "--kafka-advertise", "host:9092"},
	} {
		var o, e strings.Builder
		code := serve(context.Background(), append([]string{"--listen", "127.0.0.1:0", "--no-app", "--zookeeper", "off"}, args...), &o, &e, nil)
		if code != 2 || !strings.Contains(e.String(), "kafka-advertise") {
			t.Errorf("serve %v: exit %d, %q; want 2 and a word on --kafka-advertise", args, code, e.String())
		}
	}
}
