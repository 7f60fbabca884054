package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server"
	"github.com/kafkasim/kafkasim/server/kafka"
)

// kafkaListen is --kafka-listen and --kafka-advertise, checked: broker N
// listens on host:port+N-1 and Metadata names advertise:port+N-1.
type kafkaListen struct {
	off             bool
	host, advertise string
	port            int
}

// parseKafkaListen checks the flags before anything starts, so serve
// refuses what Kafka would not start with (an unspecified listen host
// with nothing routable to advertise: kafka.AdvertisedHost).
func parseKafkaListen(listen, advertise string) (kafkaListen, error) {
	if listen == "off" || listen == "" {
		return kafkaListen{off: true}, nil
	}
	host, p, err := net.SplitHostPort(listen)
	port, perr := strconv.Atoi(p)
	if err != nil || perr != nil || port <= 0 || port > 65535 {
		return kafkaListen{}, fmt.Errorf("--kafka-listen %q: want HOST:PORT, :PORT (every interface) or off", listen)
	}
	adv, err := kafka.AdvertisedHost(host, advertise)
	if err != nil {
		if advertise != "" {
			return kafkaListen{}, fmt.Errorf("--kafka-advertise %q: %v", advertise, err)
		}
		return kafkaListen{}, fmt.Errorf("--kafka-listen %s: %v; add --kafka-advertise HOST, the name or address clients reach this machine by, or listen on :%d to advertise this machine's host name", listen, err, port)
	}
	if host == "" {
		host = "0.0.0.0" // every interface, as Kafka binds an empty listener host (Go's net.Listen: both families)
	}
	return kafkaListen{host: host, advertise: adv, port: port}, nil
}

// startKafka opens the Kafka listeners of the default room's brokers:
// broker N on host:port+N-1 (9092, 9093, ... by default), so `kcat -b
// 127.0.0.1:9092 -L` just works. A port in use is reported and retried,
// and the rest is served.
func startKafka(ctx context.Context, kl kafkaListen, srv *server.Server, clock func(*core.Cluster) int64, stdout, stderr io.Writer) func() {
	if kl.off {
		return func() {}
	}
	ks := kafka.NewServer(kafka.FromRoom(srv.DefaultRoom()), kafka.Config{Host: kl.host, BasePort: kl.port, Advertise: kl.advertise, ClockOffset: clock,
		Logf: func(f string, a ...any) { fmt.Fprintf(stderr, "kafkasim: "+f+"\n", a...) }})
	if err := ks.Start(ctx); err != nil {
		fmt.Fprintf(stderr, "kafkasim: Kafka listeners: %v (retried until the port is free; the others and the rest of the server go on)\n", err)
	}
	listen := net.JoinHostPort(kl.host, strconv.Itoa(kl.port))
	adv := net.JoinHostPort(kl.advertise, strconv.Itoa(kl.port))
	if adv == listen {
		fmt.Fprintf(stdout, "  kafka:   broker 1 at %s (kcat -b %s -L); broker N at port %d+N-1\n", listen, adv, kl.port)
	} else {
		fmt.Fprintf(stdout, "  kafka:   broker 1 listens on %s, advertised as %s (kcat -b %s -L); broker N at port %d+N-1\n", listen, adv, adv, kl.port)
	}
	return func() { ks.Close() }
}
