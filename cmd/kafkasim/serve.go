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
	"time"

	"github.com/kafkasim/kafkasim/internal/webapp"
)

// serveCmd builds the browser app (cached) and serves it until
// interrupted.
func serveCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	app, err := webapp.Build(webapp.Options{Log: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim serve: %v\n", err)
		return 1
	}
	for _, n := range app.Notes {
		fmt.Fprintf(stderr, "kafkasim: note: %s\n", n)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim serve: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: app, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	fmt.Fprintf(stdout, "kafkasim: serving the app on http://%s/\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "kafkasim serve: %v\n", err)
		return 1
	}
	return 0
}

// siteCmd writes a static copy of the app, with precompressed .gz files.
func siteCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] == "" || args[0][0] == '-' {
		fmt.Fprintln(stderr, "usage: kafkasim site DIR")
		return 2
	}
	app, err := webapp.Build(webapp.Options{Log: stderr})
	if err == nil {
		err = app.WriteSite(args[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim site: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "kafkasim: wrote the app to %s (%d files, each with a .gz copy where smaller); serve it with any static web server\n", args[0], len(app.Paths()))
	return 0
}
