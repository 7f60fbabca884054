package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server"
	"github.com/kafkasim/kafkasim/server/room"
	"github.com/kafkasim/kafkasim/server/storage"
)

// appHandler builds the browser app's handler (the page, its wasm and
// assets) that `serve` mounts at "/" (buildApp; tests use -no-app).
var appHandler = buildApp

// listFlag collects a repeatable, comma-separated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// serveCmd runs the server until interrupted.
func serveCmd(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr, nil)
}

// serve runs the server until ctx ends; ready, if set, gets the address it
// listens on once it does.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr string)) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on (0.0.0.0:8080 opens it to the classroom network)")
	fs.StringVar(listen, "addr", "127.0.0.1:8080", "same as -listen")
	scen := fs.String("scenario", "", "a .ksim whose cluster line makes the served cluster and whose script runs with waits on the wall clock")
	speed := fs.Float64("speed", 1, "virtual ms per wall ms (0 starts paused)")
	public := fs.String("public-url", "", "base of join links and QR codes, e.g. http://192.168.1.20:8080 (default: the address each request used)")
	var origins listFlag
	fs.Var(&origins, "allow-origin", "another page origin (scheme://host:port) allowed to open websockets; repeatable; * for any")
	shareDir := fs.String("share-dir", "", "keep shared scenarios in this directory (default: in memory)")
	maxRooms := fs.Int("max-rooms", server.DefaultLimits.MaxRooms, "rooms at once")
	maxClients := fs.Int("max-clients", server.DefaultLimits.MaxClientsPerRoom, "websocket clients per room")
	kafkaListenAt := fs.String("kafka-listen", "127.0.0.1:9092", "where simulated broker 1 listens for Kafka clients (broker N: port+N-1); :9092 or 0.0.0.0:9092 is every interface; off disables")
	kafkaAdvertise := fs.String("kafka-advertise", "", "the host Metadata gives clients for every broker, each with its own port (Kafka's advertised.listeners); default: the --kafka-listen host, this machine's host name if that is empty (:9092); required with 0.0.0.0, which Kafka refuses to advertise")
	maxRate := fs.Float64("max-rate", server.DefaultLimits.CommandsPerSecond, "messages a second one websocket client may send (bursts of twice that)")
	noApp := fs.Bool("no-app", false, "do not build the browser app; serve the classroom page at /")
	dataDir := fs.String("data-dir", "", "keep each simulated broker's logs in this directory in Kafka's own layout (DIR/broker-N/<topic>-<partition>/); default: in memory")
	zkAddr := fs.String("zookeeper", defaultZooKeeper, "address for ZooKeeper clients (zkCli.sh, kazoo) to read the served cluster's simulated ensemble; off disables it")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kafkasim serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	kl, err := parseKafkaListen(*kafkaListenAt, *kafkaAdvertise)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim serve: %v\n", err)
		return 2
	}
	cfg := server.Config{Prelude: room.LocalNetwork, Speed: *speed, Paused: *speed == 0, PublicURL: *public, AllowOrigins: origins, ShareDir: *shareDir,
		Limits: server.Limits{MaxRooms: *maxRooms, MaxClientsPerRoom: *maxClients, CommandsPerSecond: *maxRate, CommandBurst: int(2 * *maxRate)},
		Logf:   func(f string, a ...any) { fmt.Fprintf(stderr, "kafkasim: "+f+"\n", a...) }}
	if *scen != "" {
		src, err := readLimited(*scen)
		if err != nil {
			fmt.Fprintf(stderr, "kafkasim serve: %v\n", err)
			return 2
		}
		cfg.Scenario, cfg.ScenarioName = src, filepath.Base(*scen)
	}
	var store *storage.Store
	if *dataDir != "" {
		st, line, err := openStorage(*dataDir, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "kafkasim serve: --data-dir: %v\n", err)
			return 1
		}
		defer st.Close()
		store = st
		if line != "" {
			if *scen != "" {
				fmt.Fprintf(stderr, "kafkasim serve: --data-dir %s already holds a cluster (%s); it restarts as it was, so --scenario cannot replace it: use an empty directory for a new one\n", *dataDir, line)
				return 2
			}
			cfg.Scenario, cfg.ScenarioName = line+"\n", "the cluster in "+*dataDir
		}
	}
	if appHandler != nil && !*noApp {
		app, err := appHandler(stderr)
		if err != nil {
			fmt.Fprintf(stderr, "kafkasim serve: the browser app: %v (serving without it)\n", err)
		} else {
			cfg.App = app
		}
	}
	srv, err := server.New(cfg)
	if err != nil {
		if *scen != "" {
			fmt.Fprintf(stderr, "kafkasim serve: %s:%v\n", *scen, strings.TrimPrefix(err.Error(), "scenario "+cfg.ScenarioName+": "))
		} else {
			fmt.Fprintf(stderr, "kafkasim serve: %v\n", err)
		}
		return 2
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim serve: %v\n", err)
		return 1
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	printHowToOpen(stdout, ln.Addr().(*net.TCPAddr), srv, cfg)
	if zs := startZooKeeper(*zkAddr, srv, stdout, stderr, cfg.Logf); zs != nil {
		defer zs.Close()
	}
	var clock func(*core.Cluster) int64
	if store != nil {
		if err := followStorage(ctx, store, *dataDir, srv, stdout); err != nil {
			fmt.Fprintf(stderr, "kafkasim serve: --data-dir: %v\n", err)
			return 1
		}
		clock = store.ClockOffset
	}
	defer startKafka(ctx, kl, srv, clock, stdout, stderr)()
	if ready != nil {
		ready(ln.Addr().String())
	}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		srv.Close() // rooms stop; websockets close
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "kafkasim serve: %v\n", err)
		return 1
	}
	return 0
}

// printHowToOpen tells the teacher where the page is, the default room's
// join code and control token, and how to open the server to a classroom.
func printHowToOpen(w io.Writer, addr *net.TCPAddr, srv *server.Server, cfg server.Config) {
	host := addr.String()
	loopback := addr.IP.IsLoopback()
	if addr.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", fmt.Sprint(addr.Port))
	}
	base := "http://" + host
	code, token := srv.DefaultCode(), srv.DefaultToken()
	name := cfg.ScenarioName
	if name == "" {
		name = "3 brokers of the newest preset"
	}
	fmt.Fprintf(w, "kafkasim: serving %s on %s/\n", name, base)
	fmt.Fprintf(w, "  room %s: students open %s/classroom?room=%s (or type the code there)\n", code, base, code)
	fmt.Fprintf(w, "  teacher: %s/classroom?room=%s#token=%s (the token drives the cluster: keep it)\n", base, code, token)
	fmt.Fprintf(w, "  ctl:     kafkasim ctl -s %s -room %s -token %s tail\n", base, code, token)
	if loopback {
		fmt.Fprintf(w, "  only this machine can connect. For a classroom network: kafkasim serve --listen 0.0.0.0:%d\n", addr.Port)
		fmt.Fprintf(w, "  and give students http://<this machine's address>:%d/classroom?room=%s\n", addr.Port, code)
		return
	}
	if addr.IP.IsUnspecified() {
		for _, ip := range localAddrs() {
			fmt.Fprintf(w, "  on the network: http://%s/classroom?room=%s\n", net.JoinHostPort(ip, fmt.Sprint(addr.Port)), code)
		}
	}
	if len(cfg.AllowOrigins) == 0 {
		fmt.Fprintf(w, "  (pages from other origins cannot open websockets; --allow-origin adds one)\n")
	}
}

// localAddrs lists this machine's non-loopback unicast addresses.
func localAddrs() []string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.IsGlobalUnicast() {
			out = append(out, n.IP.String())
		}
	}
	return out
}
