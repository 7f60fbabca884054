// Command gen writes Build's sheet coverage (sheet.Alphas) to the file
// named, for sheet.Load: go generate ./wasm/sheet.
package main

import (
	"log"
	"os"

	"github.com/kafkasim/kafkasim/wasm/sheet"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: gen OUT")
	}
	if err := os.WriteFile(os.Args[1], sheet.Build().Alphas(), 0o644); err != nil {
		log.Fatal(err)
	}
}
