// Command devserve builds the canvas wasm and serves the canvas harness
// on 127.0.0.1 (default :8090): sample scenes posted to the canvas iframe
// as the engine would, for looking at the canvas without the engine.
//
//	go run ./internal/canvasdev/devserve [-addr 127.0.0.1:8090]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/kafkasim/kafkasim/internal/canvasdev"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "listen address (loopback)")
	flag.Parse()
	root, err := canvasdev.Root()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "kafkasim-canvasdev")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := canvasdev.Build(context.Background(), root, dir, "kafkasim", "empty"); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("canvas harness on http://%s/harness.html\n", *addr)
	log.Fatal(http.ListenAndServe(*addr, canvasdev.Handler(root, dir)))
}
