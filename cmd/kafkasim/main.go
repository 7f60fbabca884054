// Command kafkasim is the simulator's one binary.
//
//	kafkasim                 run the bundled demo scenario and print its trace
//	kafkasim run [-v] [-json] FILE   run a scenario; exit 1 if an expectation fails
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
		return demo(stdout, stderr)
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdout, stderr)
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
  kafkasim                       run the bundled demo scenario
  kafkasim run [-v] [-no-check] [-json] FILE...
                                 run scenario files (.ksim) and print their traces;
                                 exit 1 if an expect fails; -json prints the steps,
                                 every event and the checker's findings as JSON lines
  kafkasim simtest [--seeds N] [--seed S] [--preset P] [--unsafe] [-h for more]
                                 simulation testing: per seed a random cluster,
                                 workload and fault schedule, invariants checked
                                 after every step; a violation is shrunk to a
                                 .ksim that reproduces it; exit 1 on a violation
`)
}
