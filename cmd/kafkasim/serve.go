package main

import (
	"fmt"
	"io"
	"net/http"

	"github.com/kafkasim/kafkasim/internal/webapp"
)

// buildApp builds the browser app (cached by source hash) that serve
// mounts at "/".
func buildApp(stderr io.Writer) (http.Handler, error) {
	app, err := webapp.Build(webapp.Options{Log: stderr})
	if err != nil {
		return nil, err
	}
	for _, n := range app.Notes {
		fmt.Fprintf(stderr, "kafkasim: note: %s\n", n)
	}
	return app, nil
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
