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

// startKafka opens the Kafka listeners of the default room's brokers:
// broker N on host:port+N-1 (9092, 9093, ... by default), so `kcat -b
// 127.0.0.1:9092 -L` just works. "off" disables them; a port in use is
// reported and the rest is served.
func startKafka(ctx context.Context, listen string, srv *server.Server, clock func(*core.Cluster) int64, stdout, stderr io.Writer) func() {
	if listen == "off" || listen == "" {
		return func() {}
	}
	host, p, err := net.SplitHostPort(listen)
	port, perr := strconv.Atoi(p)
	if err != nil || perr != nil || port <= 0 || port > 65535 {
		fmt.Fprintf(stderr, "kafkasim serve: --kafka-listen %q: want HOST:PORT or off\n", listen)
		return func() {}
	}
	ks := kafka.NewServer(kafka.FromRoom(srv.DefaultRoom()), kafka.Config{Host: host, BasePort: port, ClockOffset: clock,
		Logf: func(f string, a ...any) { fmt.Fprintf(stderr, "kafkasim: "+f+"\n", a...) }})
	if err := ks.Start(ctx); err != nil {
		fmt.Fprintf(stderr, "kafkasim: Kafka listeners: %v (retried until the port is free; the others and the rest of the server go on)\n", err)
	}
	fmt.Fprintf(stdout, "  kafka:   broker 1 at %s (kcat -b %s -L); broker N at port %d+N-1\n", listen, listen, port)
	return func() { ks.Close() }
}
