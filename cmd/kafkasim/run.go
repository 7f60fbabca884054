package main

import (
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kafkasim/kafkasim/core/scenario"
)

//go:embed demo.ksim
var demoFS embed.FS

// maxScriptFile bounds what `run` reads from a file.
const maxScriptFile = scenario.MaxScriptBytes

func runCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "show every event, messages included")
	noCheck := fs.Bool("no-check", false, "do not run the invariant checker at the end")
	asJSON := fs.Bool("json", false, "print JSON lines instead of the trace: each step, every event (messages included), the checker's findings")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "kafkasim run: no scenario file given")
		return 2
	}
	code := 0
	for _, file := range fs.Args() {
		src, err := readLimited(file)
		if err != nil {
			fmt.Fprintf(stderr, "kafkasim: %v\n", err)
			return 2
		}
		run := runScript
		if *asJSON {
			run = runScriptJSON
		}
		if c := run(file, src, scenario.RunOptions{Verbose: *verbose, NoCheck: *noCheck}, stdout, stderr); c > code {
			code = c
		}
	}
	return code
}

func readLimited(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxScriptFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxScriptFile {
		return "", fmt.Errorf("%s: larger than %d bytes", file, maxScriptFile)
	}
	return string(b), nil
}

// runScript parses and runs one script, printing its trace and failures.
// It returns 0 if every expectation held, 1 if not, 2 on a script error.
func runScript(file, src string, opts scenario.RunOptions, stdout, stderr io.Writer) int {
	s, err := scenario.Parse(src)
	if err != nil {
		fmt.Fprintf(stderr, "%s:%v\n", file, err)
		return 2
	}
	res, err := scenario.Run(s, opts)
	if res != nil {
		io.WriteString(stdout, res.Trace)
	}
	return report(file, res, err, stderr)
}

// report prints a run's error or failures and returns runScript's code.
func report(file string, res *scenario.Result, err error, stderr io.Writer) int {
	if err != nil {
		var se *scenario.Error
		if errors.As(err, &se) {
			fmt.Fprintf(stderr, "%s:%v\n", file, se)
		} else {
			fmt.Fprintf(stderr, "%s: %v\n", file, err)
		}
		return 2
	}
	for _, f := range res.Failures {
		fmt.Fprintf(stderr, "%s:%d: %s\n", file, f.Line, f.Msg)
	}
	if len(res.Failures) > 0 {
		return 1
	}
	return 0
}

func demo(stdout, stderr io.Writer) int {
	src, _ := demoFS.ReadFile("demo.ksim")
	fmt.Fprintln(stdout, "# kafkasim demo: acks=1 loses an acknowledged record when the leader dies")
	return runScript("demo.ksim", string(src), scenario.RunOptions{}, stdout, stderr)
}
