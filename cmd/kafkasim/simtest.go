package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/kafkasim/kafkasim/core/check"
	"github.com/kafkasim/kafkasim/core/simtest"
)

// simtestCmd is `kafkasim simtest`: run seeds of the simulation tester
// (core/simtest) in parallel, print progress and a summary, and for a
// violation the seed and a shrunken .ksim that reproduces it. It exits 0
// when no seed broke an invariant, 1 when one did, 2 on bad usage.
func simtestCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seeds := fs.Int("seeds", 100, "number of seeds to run")
	start := fs.Uint64("start", 1, "first seed")
	seed := fs.Uint64("seed", 0, "run exactly this seed (reproduce it)")
	preset := fs.String("preset", "", "Kafka version preset (0.8, 0.11, 2.8, 3.9, 4.0); default: a random one per seed")
	unsafe := fs.Bool("unsafe", false, "unsafe settings: the checker must find violations (acks=0/1, unclean election, 0.8, retries without idempotence, ...)")
	steps := fs.Int("steps", 0, fmt.Sprintf("steps in each seed's main phase (default %d)", simtest.DefaultSteps))
	jobs := fs.Int("jobs", runtime.NumCPU(), "seeds run in parallel")
	keepGoing := fs.Bool("keep-going", false, "run every seed even after a violation (default in --unsafe mode)")
	noShrink := fs.Bool("no-shrink", false, "do not shrink violations to a reproduction")
	shrinkRuns := fs.Int("shrink-runs", simtest.DefaultShrinkRuns, "most runs spent shrinking one violation")
	script := fs.Bool("script", false, "with --seed: print the seed's whole generated script")
	out := fs.String("out", "", "directory to write reproductions to (seed-S-KIND.ksim)")
	quiet := fs.Bool("q", false, "no progress lines")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim simtest [--seeds N] [--seed S] [--preset P] [--unsafe] [flags]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kafkasim simtest: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg := simtest.Config{Unsafe: *unsafe, Preset: *preset, Steps: *steps}
	if err := cfg.Check(); err != nil {
		fmt.Fprintf(stderr, "kafkasim simtest: %v\n", err)
		return 2
	}
	if cfg.Steps == 0 {
		cfg.Steps = simtest.DefaultSteps
	}
	first, n := *start, *seeds
	one := false
	fs.Visit(func(f *flag.Flag) { one = one || f.Name == "seed" })
	if one {
		first, n = *seed, 1
	}
	if n < 1 || *jobs < 1 {
		fmt.Fprintln(stderr, "kafkasim simtest: --seeds and --jobs must be at least 1")
		return 2
	}
	// A run allocates many short-lived messages and keeps little: a lazier
	// collector makes the seeds a third faster.
	debug.SetGCPercent(400)

	r := &simRunner{cfg: cfg, stdout: stdout, stderr: stderr, keepGoing: *keepGoing || cfg.Unsafe || one,
		shrink: !*noShrink, shrinkRuns: *shrinkRuns, outDir: *out, progress: !*quiet && !one, started: time.Now()}
	if one && *script {
		c := simtest.Generate(first, cfg)
		text, err := c.Text()
		if err != nil {
			fmt.Fprintf(stderr, "kafkasim simtest: seed %d: %v\n", first, err)
			return 2
		}
		fmt.Fprintf(stdout, "# kafkasim simtest --seed %d script (%d steps)\n%s", first, len(c.Steps), text)
	}
	r.run(first, n, *jobs)
	return r.finish()
}

// failure is the first seed that showed a kind of violation.
type failure struct {
	res  *simtest.Result
	kind simtest.Kind
}

// simRunner runs seeds on worker goroutines and reports them in seed order.
type simRunner struct {
	cfg        simtest.Config
	stdout     io.Writer
	stderr     io.Writer
	keepGoing  bool
	shrink     bool
	shrinkRuns int
	outDir     string
	progress   bool
	started    time.Time

	sum      simtest.Summary
	failed   []failure // the first seed showing each kind, in seed order
	lastLine time.Time
	stopped  bool
}

func (r *simRunner) run(first uint64, n, jobs int) {
	next := make(chan uint64)
	results := make(chan *simtest.Result, jobs)
	var stop sync.Once
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				results <- simtest.RunSeed(s, r.cfg)
			}
		}()
	}
	go func() {
		defer close(next)
		for i := 0; i < n; i++ {
			select {
			case next <- first + uint64(i):
			case <-done:
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	// Results arrive out of order; they are counted in seed order, so the
	// output and the first violation reported do not depend on timing.
	pending := map[uint64]*simtest.Result{}
	want := first
	for res := range results {
		pending[res.Seed] = res
		for pending[want] != nil && !r.stopped {
			r.take(pending[want])
			delete(pending, want)
			want++
			if r.stopped {
				stop.Do(func() { close(done) })
			}
		}
	}
}

// take counts one result, in seed order.
func (r *simRunner) take(res *simtest.Result) {
	r.sum.Add(res)
	if o := res.Outcome; o.Broken != "" {
		fmt.Fprintf(r.stdout, "simtest: seed %d: the generated script did not run: %s\n", res.Seed, o.Broken)
	}
	for _, k := range kindOrder {
		v := res.Outcome.Kinds[k]
		if v == nil {
			continue
		}
		seen := false
		for _, f := range r.failed {
			seen = seen || f.kind == k
		}
		if !seen {
			r.failed = append(r.failed, failure{res, k})
		}
		// In safe mode every violating seed is named (each is a bug to
		// fix); --unsafe names the first of each kind.
		if !seen || !r.cfg.Unsafe {
			fmt.Fprintf(r.stdout, "simtest: seed %d: %s\n", res.Seed, v)
		}
	}
	for _, k := range kindOrder {
		if v := res.Outcome.Explained[k]; v != nil {
			fmt.Fprintf(r.stdout, "simtest: seed %d: explained by Kafka's behaviour, not a violation: %s\n", res.Seed, v)
		}
	}
	if res.Outcome.Violation != nil && !r.keepGoing {
		r.stopped = true
	}
	if r.progress && time.Since(r.lastLine) >= 2*time.Second {
		r.lastLine = time.Now()
		fmt.Fprintf(r.stdout, "simtest: %d seeds (%.0f seeds/s), %d steps, %d faults, %d records acked, %d violations\n",
			r.sum.Seeds, r.rate(), r.sum.Steps, r.sum.Faults, r.sum.Acked, r.sum.Violations())
	}
}

func (r *simRunner) rate() float64 {
	if s := time.Since(r.started).Seconds(); s > 0 {
		return float64(r.sum.Seeds) / s
	}
	return 0
}

// finish prints the summary and the reproductions, and returns the exit code.
func (r *simRunner) finish() int {
	mode := "safe"
	if r.cfg.Unsafe {
		mode = "unsafe"
	}
	preset := r.cfg.Preset
	if preset == "" {
		preset = "random"
	}
	fmt.Fprintf(r.stdout, "simtest (%s, preset %s, %d steps a seed): %.1fs, %.0f seeds/s\n", mode, preset, r.cfg.Steps, time.Since(r.started).Seconds(), r.rate())
	io.WriteString(r.stdout, r.sum.String())
	code := 0
	if r.sum.Broken > 0 {
		code = 1
	}
	for _, f := range r.failed {
		code = 1
		if r.shrink {
			r.reproduce(f.res, f.kind)
		}
	}
	if r.cfg.Unsafe && r.sum.Seeds > 1 {
		for _, k := range simtest.UnsafeKinds {
			if _, ok := r.sum.FirstSeed[k]; !ok {
				fmt.Fprintf(r.stdout, "simtest: the checker found no %s in %d unsafe seeds\n", k, r.sum.Seeds)
			}
		}
	}
	return code
}

// reproduce shrinks a failed seed and prints (and maybe writes) its .ksim.
func (r *simRunner) reproduce(res *simtest.Result, kind simtest.Kind) {
	t0 := time.Now()
	rep, sh, err := res.Reproduce(kind, r.shrinkRuns)
	if err != nil {
		fmt.Fprintf(r.stdout, "simtest: seed %d: %v\n", res.Seed, err)
		return
	}
	fmt.Fprintf(r.stdout, "\nsimtest: seed %d: %s\n", res.Seed, rep.Violation)
	fmt.Fprintf(r.stdout, "shrunk from %d steps to %d in %d runs (%.1fs); replay with `kafkasim run FILE`:\n",
		len(res.Case.Steps), len(sh.Steps), sh.Runs, time.Since(t0).Seconds())
	fmt.Fprintf(r.stdout, "----8<---- seed-%d-%s.ksim\n%s----8<----\n", res.Seed, kind, rep.Text)
	if r.outDir != "" {
		name := filepath.Join(r.outDir, fmt.Sprintf("seed-%d-%s.ksim", res.Seed, kind))
		if err := os.WriteFile(name, []byte(rep.Text), 0o644); err != nil {
			fmt.Fprintf(r.stderr, "kafkasim simtest: %v\n", err)
			return
		}
		fmt.Fprintf(r.stdout, "wrote %s\n", name)
	}
}

// kindOrder is the order violations are reported in.
var kindOrder = append(append([]simtest.Kind(nil), check.Kinds...), simtest.Liveness)
