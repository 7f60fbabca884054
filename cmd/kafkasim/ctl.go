package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server/client"
	"github.com/kafkasim/kafkasim/server/protocol"
)

const ctlUsage = `usage: kafkasim ctl [-s URL] [-room CODE] [-token TOKEN] COMMAND [ARGS]

  -s, -room and -token default to $KAFKASIM_SERVER (else http://127.0.0.1:8080),
  $KAFKASIM_ROOM (else the server's default room) and $KAFKASIM_TOKEN.

commands:
  create [-name N] [-speed X] [-json] [FILE.ksim]   make a room; prints its code, token and links
  info [-json]                       the room: scenario, clients, virtual time, speed
  cmd [-json] LINE... | -            run scenario lines (- reads them from stdin); waits follow
                                     the room's clock; exit 1 if a command or expect failed
  load FILE.ksim                     replace the room's scenario with a file's
  reset                              back to the start of the room's scenario
  speed X                            virtual ms per wall ms (0 pauses)
  advance DURATION                   move a (paused) room's time forward at once (250ms, 10s, 2m)
  tail [-json] [-v] [-n N] [-for D]  print the room's events as they happen (text, or JSON lines);
                                     stops after N events or D of wall time, or on Ctrl-C
  snapshot                           print the room's state now as JSON
  history                            print the room's history as a .ksim (replay it to fork)
  share FILE.ksim                    store a scenario on the server; prints its short id and link
  shared ID                          print a shared scenario
`

// ctlCmd is `kafkasim ctl`.
func ctlCmd(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return ctl(ctx, args, stdout, stderr)
}

type ctlEnv struct {
	ctx            context.Context
	c              *client.Client
	room, token    string
	stdin          io.Reader
	stdout, stderr io.Writer
}

func ctl(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return ctlWithStdin(ctx, args, os.Stdin, stdout, stderr)
}

func ctlWithStdin(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ctl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, ctlUsage) }
	srv := fs.String("s", envOr("KAFKASIM_SERVER", "http://127.0.0.1:8080"), "server URL")
	room := fs.String("room", os.Getenv("KAFKASIM_ROOM"), "room join code")
	token := fs.String("token", os.Getenv("KAFKASIM_TOKEN"), "the room's control token")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprint(stderr, ctlUsage)
		return 2
	}
	c, err := client.New(*srv)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim ctl: %v\n", err)
		return 2
	}
	e := &ctlEnv{ctx: ctx, c: c, room: *room, token: *token, stdin: stdin, stdout: stdout, stderr: stderr}
	sub, rest := fs.Arg(0), fs.Args()[1:]
	cmds := map[string]func([]string) error{
		"create": e.create, "info": e.info, "cmd": e.cmd, "load": e.load, "reset": e.reset,
		"speed": e.speed, "advance": e.advance, "tail": e.tail, "snapshot": e.snapshot,
		"history": e.history, "share": e.share, "shared": e.shared,
	}
	fn := cmds[sub]
	if fn == nil {
		fmt.Fprintf(stderr, "kafkasim ctl: unknown command %q\n%s", sub, ctlUsage)
		return 2
	}
	err = fn(rest)
	var uerr usageError
	var ferr failedError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &uerr):
		fmt.Fprintf(stderr, "kafkasim ctl %s: %v\n", sub, err)
		return 2
	case errors.As(err, &ferr):
		return 1
	default:
		fmt.Fprintf(stderr, "kafkasim ctl %s: %v\n", sub, err)
		return 1
	}
}

type usageError struct{ error }

// failedError: the command ran and said what failed on stdout/stderr.
type failedError struct{ error }

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func usagef(f string, a ...any) error { return usageError{fmt.Errorf(f, a...)} }

func subFlags(name string, e *ctlEnv) *flag.FlagSet {
	fs := flag.NewFlagSet("ctl "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

// code is the room to talk to: -room, or the server's default room.
func (e *ctlEnv) code() (string, error) {
	if e.room != "" {
		return e.room, nil
	}
	var info struct {
		DefaultRoom string `json:"defaultRoom"`
	}
	if err := e.c.Get(e.ctx, "/api/info", &info); err != nil {
		return "", err
	}
	if info.DefaultRoom == "" {
		return "", usagef("no -room given and the server names no default room")
	}
	return info.DefaultRoom, nil
}

// dial connects to the room, as a driver when drive is set.
func (e *ctlEnv) dial(drive bool) (*client.Conn, error) {
	code, err := e.code()
	if err != nil {
		return nil, err
	}
	tok := ""
	if drive {
		if e.token == "" {
			return nil, usagef("driving a room needs its control token: -token or $KAFKASIM_TOKEN")
		}
		tok = e.token
	}
	conn, err := e.c.Dial(e.ctx, code, tok)
	if err == nil && drive {
		conn.IgnoreStream() // only the replies matter
	}
	return conn, err
}

func (e *ctlEnv) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (e *ctlEnv) create(args []string) error {
	fs := subFlags("create", e)
	name := fs.String("name", "", "what the room's scenario is called")
	speed := fs.Float64("speed", 1, "virtual ms per wall ms (0: paused)")
	asJSON := fs.Bool("json", false, "print the room as JSON")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	req := protocol.CreateRoom{Name: *name, Speed: speed, Paused: *speed == 0}
	if fs.NArg() > 1 {
		return usagef("one scenario file at most")
	}
	if fs.NArg() == 1 {
		src, err := readLimited(fs.Arg(0))
		if err != nil {
			return err
		}
		req.Scenario = src
		if req.Name == "" {
			req.Name = filepath.Base(fs.Arg(0))
		}
	}
	info, err := e.c.CreateRoom(e.ctx, req)
	if err != nil {
		return err
	}
	if *asJSON {
		return e.printJSON(info)
	}
	fmt.Fprintf(e.stdout, "room %s (%s)\n  token:  %s\n  join:   %s\n  qr:     %s\n  export: KAFKASIM_SERVER=%s KAFKASIM_ROOM=%s KAFKASIM_TOKEN=%s\n",
		info.Code, info.Scenario, info.Token, info.Join, info.QR, e.c.Base, info.Code, info.Token)
	return nil
}

func (e *ctlEnv) info(args []string) error {
	fs := subFlags("info", e)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	code, err := e.code()
	if err != nil {
		return err
	}
	info, err := e.c.Room(e.ctx, code)
	if err != nil {
		return err
	}
	if *asJSON {
		return e.printJSON(info)
	}
	fmt.Fprintf(e.stdout, "room %s: %s, virtual time %s, speed %g, %d client(s) (%d driving), generation %d\n  join: %s\n",
		info.Code, info.Scenario, core.FormatTime(info.Now), info.Speed, info.Clients, info.Drivers, info.Gen, info.Join)
	return nil
}

// cmd runs scenario lines and prints what failed (or the prints).
func (e *ctlEnv) cmd(args []string) error {
	fs := subFlags("cmd", e)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() == 0 {
		return usagef("give scenario lines, or - to read them from stdin")
	}
	text := strings.Join(fs.Args(), "\n")
	if fs.NArg() == 1 && fs.Arg(0) == "-" {
		b, err := io.ReadAll(io.LimitReader(e.stdin, 1<<20+1))
		if err != nil {
			return err
		}
		text = string(b)
	}
	conn, err := e.dial(true)
	if err != nil {
		return err
	}
	defer conn.Close()
	res, err := conn.Cmd(e.ctx, text)
	var re *client.ReplyError
	if errors.As(err, &re) && re.Reply.Code == protocol.ErrParse {
		fmt.Fprintf(e.stderr, "kafkasim ctl cmd: %s\n", re.Reply.Message)
		return failedError{err}
	}
	if err != nil {
		return err
	}
	if *asJSON {
		if err := e.printJSON(res); err != nil {
			return err
		}
	} else {
		for _, l := range res.Lines {
			switch {
			case l.Error != "":
				fmt.Fprintf(e.stderr, "%d: command failed at %s: %s\n", l.Line, core.FormatTime(l.At), l.Error)
			case l.Failed != "":
				fmt.Fprintf(e.stderr, "%d: expect failed at %s: %s\n", l.Line, core.FormatTime(l.At), l.Failed)
			case l.Output != "":
				fmt.Fprintln(e.stdout, l.Output)
			}
		}
	}
	if !res.OK {
		return failedError{errors.New("failed")}
	}
	return nil
}

func (e *ctlEnv) load(args []string) error {
	if len(args) != 1 {
		return usagef("give one .ksim file")
	}
	src, err := readLimited(args[0])
	if err != nil {
		return err
	}
	conn, err := e.dial(true)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Load(e.ctx, filepath.Base(args[0]), src)
	var re *client.ReplyError
	if errors.As(err, &re) && re.Reply.Code == protocol.ErrParse {
		return fmt.Errorf("%s:%s", args[0], re.Reply.Message)
	}
	if err == nil {
		fmt.Fprintf(e.stdout, "loaded %s\n", args[0])
	}
	return err
}

func (e *ctlEnv) simple(n int, args []string, do func(*client.Conn) (protocol.Result, error)) error {
	if len(args) != n {
		return usagef("want %d argument(s)", n)
	}
	conn, err := e.dial(true)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = do(conn)
	return err
}

func (e *ctlEnv) reset(args []string) error {
	return e.simple(0, args, func(c *client.Conn) (protocol.Result, error) { return c.Reset(e.ctx) })
}

func (e *ctlEnv) speed(args []string) error {
	if len(args) != 1 {
		return usagef("give the speed (0 pauses)")
	}
	v, err := strconv.ParseFloat(args[0], 64)
	if err != nil {
		return usagef("speed %q: want a number", args[0])
	}
	return e.simple(1, args, func(c *client.Conn) (protocol.Result, error) { return c.Speed(e.ctx, v) })
}

func (e *ctlEnv) advance(args []string) error {
	if len(args) != 1 {
		return usagef("give a duration (250ms, 10s, 2m)")
	}
	d, err := time.ParseDuration(args[0])
	if err != nil || d <= 0 || d%time.Millisecond != 0 {
		return usagef("duration %q: want whole milliseconds, e.g. 250ms, 10s, 2m", args[0])
	}
	return e.simple(1, args, func(c *client.Conn) (protocol.Result, error) { return c.Advance(e.ctx, d.Milliseconds()) })
}

func (e *ctlEnv) snapshot(args []string) error {
	if len(args) != 0 {
		return usagef("no arguments")
	}
	code, err := e.code()
	if err != nil {
		return err
	}
	s, err := e.c.Snapshot(e.ctx, code)
	if err != nil {
		return err
	}
	return e.printJSON(s)
}

func (e *ctlEnv) history(args []string) error {
	if len(args) != 0 {
		return usagef("no arguments")
	}
	code, err := e.code()
	if err != nil {
		return err
	}
	h, err := e.c.History(e.ctx, code)
	if err == nil {
		_, err = io.WriteString(e.stdout, h)
	}
	return err
}

func (e *ctlEnv) share(args []string) error {
	if len(args) != 1 {
		return usagef("give one .ksim file")
	}
	src, err := readLimited(args[0])
	if err != nil {
		return err
	}
	sh, err := e.c.Share(e.ctx, src)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s\n  scenario: %s\n  open:     %s\n", sh.ID, sh.URL, sh.App)
	return nil
}

func (e *ctlEnv) shared(args []string) error {
	if len(args) != 1 {
		return usagef("give a share id")
	}
	s, err := e.c.Shared(e.ctx, args[0])
	if err == nil {
		_, err = io.WriteString(e.stdout, s)
	}
	return err
}
