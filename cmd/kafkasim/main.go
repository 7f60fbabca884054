// Command kafkasim is the simulator's one binary.
//
//	kafkasim                 serve (the same as kafkasim serve)
//	kafkasim serve           the server: the app, rooms, the websocket bridge
//	kafkasim ctl             a command-line client of a server's rooms
//	kafkasim site DIR        write the browser app as a static site
//	kafkasim demo            run the bundled demo scenario and print its trace
//	kafkasim run [-v] [-json] FILE   run a scenario; exit 1 if an expectation fails
//	kafkasim lesson FILE...  parse a lesson (.md) and run every step on the core
//	kafkasim simtest         simulation testing: random clusters, workloads and
//	                         faults, invariants checked after every step
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return serveCmd(nil, stdout, stderr)
	}
	switch args[0] {
	case "serve":
		return serveCmd(args[1:], stdout, stderr)
	case "site":
		return siteCmd(args[1:], stdout, stderr)
	case "ctl":
		return ctlCmd(args[1:], stdout, stderr)
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "lesson":
		return lessonCmd(args[1:], stdout, stderr)
	case "simtest":
		return simtestCmd(args[1:], stdout, stderr)
	case "demo":
		return demo(stdout, stderr)
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "kafkasim: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  kafkasim                       serve (the same as kafkasim serve)
  kafkasim serve [--listen 127.0.0.1:8080] [--scenario FILE.ksim] [--speed X] [-h for more]
                                 serve the app and a room whose cluster runs on the
                                 wall clock; prints the join code and control token;
                                 ZooKeeper clients read its ensemble at 127.0.0.1:2181
                                 (--zookeeper ADDR|off; docs/zookeeper.md)
  kafkasim ctl [-s URL] [-room CODE] [-token T] COMMAND ...
                                 drive and watch a server's room: create, cmd, load,
                                 tail, snapshot, history, reset, speed, advance,
                                 share, shared, info (kafkasim ctl -h)
  kafkasim site DIR              write the app as static files (+ .gz copies)
  kafkasim demo                  run the bundled demo scenario
  kafkasim run [-v] [-no-check] [-json] FILE...
                                 run scenario files (.ksim) and print their traces;
                                 exit 1 if an expect fails; -json prints the steps,
                                 every event and the checker's findings as JSON lines
  kafkasim lesson [-lang L] FILE...
                                 check lesson files (Markdown with ksim steps, see
                                 docs/lessons.md): parse, then run every step on the
                                 core; exit 1 if the cluster disagrees with the text
  kafkasim simtest [--seeds N] [--seed S] [--preset P] [--unsafe] [-h for more]
                                 simulation testing: per seed a random cluster,
                                 workload and fault schedule, invariants checked
                                 after every step; a violation is shrunk to a
                                 .ksim that reproduces it; exit 1 on a violation
`)
}
