package kafka

import (
	"net"
	"os"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/internal/kafkawire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// rawMetadata asks addr for Metadata v1 on a connection of its own.
func rawMetadata(t *testing.T, addr string) *kmsg.MetadataResponse {
	t.Helper()
	resp, err := kafkawire.Metadata(addr)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestAdvertiseMetadata: Metadata names the advertised host for every
// broker, each with its own listener's port, while the listeners listen
// where Host says (Kafka's advertised.listeners).
func TestAdvertiseMetadata(t *testing.T) {
	b := threeBrokers(t, "3.9", "kraft")
	s, addr := listenFreeWith(t, b, 3, Config{Host: "127.0.0.1", Advertise: "kafka.example", Logf: t.Logf})
	t.Cleanup(func() { s.Close() })
	_, port, _ := net.SplitHostPort(addr)
	resp := rawMetadata(t, addr)
	if len(resp.Brokers) != 3 {
		t.Fatalf("brokers: %+v", resp.Brokers)
	}
	for _, br := range resp.Brokers {
		_, want := s.Addr(int(br.NodeID))
		if br.Host != "kafka.example" || br.Port != int32(want) {
			t.Errorf("broker %d advertised as %s:%d, want kafka.example:%d (broker 1 at %s)", br.NodeID, br.Host, br.Port, want, port)
		}
	}
}

// TestAdvertisedHost: what Kafka would advertise for a listener host and
// an advertised host, and what it refuses to start with.
func TestAdvertisedHost(t *testing.T) {
	name, _ := os.Hostname()
	for _, c := range []struct{ listen, advertise, want, err string }{
		{"127.0.0.1", "", "127.0.0.1", ""},
		{"0.0.0.0", "192.168.1.20", "192.168.1.20", ""},
		{"0.0.0.0", "", "", "meta-address 0.0.0.0"},
		{"::", "", "", "meta-address ::"},
		{"127.0.0.1", "0.0.0.0", "", "meta-address 0.0.0.0"},
		{"", "", name, ""},
		{"", "kafka.local", "kafka.local", ""},
		{"0.0.0.0", "[fe80::1]", "fe80::1", ""},
		{"0.0.0.0", "host:9092", "", "without a port"},
		{"0.0.0.0", "a host", "", "in no host name"},
		{"0.0.0.0", strings.Repeat("a", MaxAdvertiseBytes+1), "", "1-255 bytes"},
	} {
		got, err := AdvertisedHost(c.listen, c.advertise)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("AdvertisedHost(%q, %q) = %q, %v; want an error with %q", c.listen, c.advertise, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("AdvertisedHost(%q, %q) = %q, %v; want %q", c.listen, c.advertise, got, err, c.want)
		}
	}
}
