package main

import (
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/kafkasim/kafkasim/server"
	"github.com/kafkasim/kafkasim/server/zookeeper"
)

// defaultZooKeeper is where `kafkasim serve` listens for ZooKeeper clients.
const defaultZooKeeper = "127.0.0.1:2181"

// startZooKeeper opens the ZooKeeper-protocol listener on the default
// room's cluster (docs/zookeeper.md). "off" or "" disables it. If the
// address is taken (a real ZooKeeper on 2181, say), it says so and
// returns nil: the rest is served anyway.
func startZooKeeper(addr string, srv *server.Server, stdout, stderr io.Writer, logf func(string, ...any)) *zookeeper.Server {
	if addr == "" || addr == "off" {
		return nil
	}
	zs, err := zookeeper.Listen(addr, srv.DefaultRoom(), zookeeper.Config{Logf: logf})
	if err != nil {
		why := err.Error()
		if errors.Is(err, syscall.EADDRINUSE) {
			why = "the address is in use (is a real ZooKeeper running there?)"
		}
		fmt.Fprintf(stderr, "kafkasim serve: no ZooKeeper listener on %s: %s; serving the rest. Pick another address with --zookeeper HOST:PORT, or --zookeeper off\n", addr, why)
		return nil
	}
	fmt.Fprintf(stdout, "  zookeeper: %s/bin/zkCli.sh -server %s (ZooKeeper-mode clusters: the simulated ensemble, read-only but for delete /controller, which forces a controller election)\n", "/usr/share/zookeeper", zs.Addr())
	return zs
}
