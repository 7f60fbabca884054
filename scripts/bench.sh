#!/usr/bin/env bash
# bench.sh — `make bench`: the core's speed, natively and in WebAssembly, and
# the browser figures (wasm sizes, first frame, canvas frame rate; at the end).
#
# BenchmarkEndToEnd (core/bench_test.go) pushes records through a 3-broker
# cluster (6 partitions, RF 3, acks=all, idempotent producer, one consumer)
# and reports simulated records per wall-clock second. It runs natively on
# one core (-cpu 1) and as GOOS=js GOARCH=wasm under node; the table shows
# the median of BENCH_COUNT runs of each and the ratio wasm/native. The log
# package's append/read benchmarks follow. Figures only: nothing here fails
# on a slow machine, only when a benchmark does not build or run.
#
# Knobs: BENCH_RECORDS (records per end-to-end run, default 1000000),
# BENCH_COUNT (runs of each benchmark, default 5), BENCH_LOGTIME (-benchtime
# of the log benchmarks, default 200ms), BENCH_SIMSEEDS (seeds per run of
# BenchmarkSimtestSeeds, core/simtest: simulation-testing seeds per second,
# default 200), BENCH_MAX_WATCHERS (the most watchers BenchmarkWatchers
# tries, cmd/kafkasim: default 1000), BENCH_KAFKA_RECORDS and
# BENCH_KAFKA_MEM_RECORDS (real Kafka clients, at the end: default 1000000
# and 5000000), BENCH_KAFKA_ROUNDS (rounds of kafkasim against kfake,
# default 5). The defaults take a few minutes.
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
RECORDS=${BENCH_RECORDS:-1000000}
COUNT=${BENCH_COUNT:-5}
LOGTIME=${BENCH_LOGTIME:-200ms}
SIMSEEDS=${BENCH_SIMSEEDS:-200}

die() {
	echo "bench: $*" >&2
	exit 1
}

command -v "$GO" >/dev/null || die "$GO not found"
command -v node >/dev/null || die "node not found: it runs the wasm benchmarks"
goroot=$("$GO" env GOROOT) || die "$GO env GOROOT failed"
WASMEXEC=$goroot/lib/wasm
[[ -x $WASMEXEC/go_js_wasm_exec ]] || die "$WASMEXEC/go_js_wasm_exec not found"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME OUT ARGS...: go test with ARGS natively (NAME native) or under
# node (NAME wasm); output to OUT. A failed run prints its output and stops.
run() {
	local target=$1 out=$2
	shift 2
	local status=0
	echo "running $target: go test $*" >&2
	if [[ $target == wasm ]]; then
		PATH="$WASMEXEC:$PATH" GOOS=js GOARCH=wasm "$GO" test "$@" >"$out" 2>&1 || status=$?
	else
		"$GO" test "$@" >"$out" 2>&1 || status=$?
	fi
	if ((status != 0)); then
		cat "$out" >&2
		die "go test ($target) failed with status $status"
	fi
}

# metric FILE BENCH UNIT: the median over runs of BENCH's figure in UNIT
# (e.g. records/s, allocs/op); fails if BENCH reported none.
metric() {
	local file=$1 bench=$2 unit=$3 vals
	vals=$(awk -v b="$bench" -v u="$unit" '
		{ name = $1; sub(/-[0-9]+$/, "", name) }
		name == b { for (i = 3; i <= NF; i++) if ($i == u) print $(i-1) }' "$file" | sort -g)
	[[ -n $vals ]] || die "$bench reported no $unit in $file: did it run? Output:
$(cat "$file")"
	awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2 }' <<<"$vals"
}

# ratio A B: A/B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }

# human N: a rate with a k/M/G suffix.
human() {
	awk -v n="$1" 'BEGIN {
		if (n >= 1e9) printf "%.2fG", n / 1e9
		else if (n >= 1e6) printf "%.2fM", n / 1e6
		else if (n >= 1e3) printf "%.1fk", n / 1e3
		else printf "%.0f", n }'
}

e2e=(-run '^$' -bench '^BenchmarkEndToEnd$' -benchtime "${RECORDS}x" -count "$COUNT" -cpu 1 ./core/)
run native "$tmp/e2e-native" "${e2e[@]}"
run wasm "$tmp/e2e-wasm" "${e2e[@]}"

grp=(-run '^$' -bench '^BenchmarkGroupEndToEnd$' -benchtime "${RECORDS}x" -count "$COUNT" -cpu 1 ./core/)
run native "$tmp/grp-native" "${grp[@]}"
reb=(-run '^$' -bench '^BenchmarkRebalance100$' -benchtime 5x -count "$COUNT" -cpu 1 ./core/)
run native "$tmp/reb-native" "${reb[@]}"

sim=(-run '^$' -bench '^BenchmarkSimtestSeeds$' -benchtime "${SIMSEEDS}x" -count "$COUNT" -cpu 1 ./core/simtest/)
run native "$tmp/sim-native" "${sim[@]}"
run wasm "$tmp/sim-wasm" "${sim[@]}"

wat=(-run '^$' -bench '^BenchmarkWatchers$' -benchtime 1x -count 1 ./cmd/kafkasim/)
run native "$tmp/wat-native" "${wat[@]}"

logb=(-run '^$' -bench . -benchtime "$LOGTIME" -count 1 -cpu 1 ./core/log/)
run native "$tmp/log-native" "${logb[@]}"
run wasm "$tmp/log-wasm" "${logb[@]}"

# row prints one figure of a table: a label and a right-aligned value.
row() { printf '  %-22s %14s\n' "$1" "$2"; }

nat=$(metric "$tmp/e2e-native" BenchmarkEndToEnd records/s)
was=$(metric "$tmp/e2e-wasm" BenchmarkEndToEnd records/s)
nallocs=$(metric "$tmp/e2e-native" BenchmarkEndToEnd allocs/krec)
nbytes=$(metric "$tmp/e2e-native" BenchmarkEndToEnd B/op)

echo
echo "End to end: 3 brokers, 6 partitions, RF 3, acks=all, idempotent producer, 1 consumer"
echo "($RECORDS records per run, median of $COUNT runs, one core)"
row "native records/s" "$(human "$nat")"
row "wasm records/s" "$(human "$was")"
row "ratio wasm/native" "$(ratio "$was" "$nat")"
row "native allocs/1000 rec" "$nallocs"
row "native bytes/record" "$nbytes"
if awk -v n="$nat" 'BEGIN { exit !(n < 2e6) }'; then
	echo "  (below the 2M records/s native target on this machine)"
fi

gnat=$(metric "$tmp/grp-native" BenchmarkGroupEndToEnd records/s)
rns=$(metric "$tmp/reb-native" BenchmarkRebalance100 ns/op)
rvirt=$(metric "$tmp/reb-native" BenchmarkRebalance100 virtual-ms/rebalance)
echo
echo "Consumer group: the same pipeline consumed by a 3-member group with auto-commit"
row "native records/s" "$(human "$gnat")"
echo "A 100-member group forming over 100 partitions (join, sync, assign)"
row "wall time" "$(awk -v n="$rns" 'BEGIN { printf "%.1f ms", n / 1e6 }')"
row "virtual time" "$(awk -v n="$rvirt" 'BEGIN { printf "%.0f ms", n }')"

snat=$(metric "$tmp/sim-native" BenchmarkSimtestSeeds seeds/s)
swas=$(metric "$tmp/sim-wasm" BenchmarkSimtestSeeds seeds/s)
ssteps=$(metric "$tmp/sim-native" BenchmarkSimtestSeeds steps/seed)
echo
echo "Simulation testing (core/simtest): safe seeds run and checked after every step"
echo "($SIMSEEDS seeds per run, median of $COUNT runs, one core; \`kafkasim simtest\` runs one seed per core)"
row "native seeds/s" "$(awk -v n="$snat" 'BEGIN { printf "%.0f", n }')"
row "wasm seeds/s" "$(awk -v n="$swas" 'BEGIN { printf "%.0f", n }')"
row "ratio wasm/native" "$(ratio "$swas" "$snat")"
row "steps/seed" "$(awk -v n="$ssteps" 'BEGIN { printf "%.0f", n }')"

wn=$(metric "$tmp/wat-native" BenchmarkWatchers watchers)
wp=$(metric "$tmp/wat-native" BenchmarkWatchers p99-ms)
wm=$(metric "$tmp/wat-native" BenchmarkWatchers server-bytes/client)
echo
echo "Server (kafkasim serve in its own process): one room streaming 500 events/s to websocket"
echo "watchers (on this machine, sharing its cores with them); sustained = 99% of events within"
echo "100 ms of being sent, none resynced"
row "watchers sustained" "$(awk -v n="$wn" 'BEGIN { printf "%.0f", n }')"
row "p99 latency there" "$(awk -v n="$wp" 'BEGIN { printf "%.0f ms", n }')"
row "server memory/client" "$(awk -v n="$wm" 'BEGIN { printf "%.1f KB", n / 1024 }')"
if awk -v n="$wn" 'BEGIN { exit !(n < 200) }'; then
	echo "  (below the 200-watcher target on this machine)"
fi

echo
echo "Log (core/log), records/s:"
printf '  %-32s %12s %12s %8s\n' benchmark native wasm ratio
for b in $(awk '/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); print n }' "$tmp/log-native"); do
	n=$(metric "$tmp/log-native" "$b" records/s)
	w=$(metric "$tmp/log-wasm" "$b" records/s)
	printf '  %-32s %12s %12s %8s\n' "${b#Benchmark}" "$(human "$n")" "$(human "$w")" "$(ratio "$w" "$n")"
done

# Browser (internal/canvasdev/canvasbench): the wasm sizes and what the
# page loads before its first frame; the real page's first frame on
# localhost (cold profile, in a browser that has finished starting:
# canvasdev.WaitGPU); the frame rate of the real page playing the
# reference scene (5 brokers, 3 topics x 8 partitions, RF 3, two groups,
# 500 records/s; engine and canvas in one wasm) over that of an empty
# Ebiten program of the same size, in one headless Chromium (software
# WebGL), with the load average. Each program runs BENCH_FPSWARM (default
# 10s) before its frames are counted: V8 compiles the hot wasm functions
# again in TurboFan through the reference scene's first 10-15 s (25 ms of
# CPU a frame in its first 5 s, 2-3 after), a one-time cost of the start,
# not the frame rate the rest of a session gets; the empty program, which
# runs almost no code, is done within a second. The CPU per frame of
# either half of the count follows (a steady figure has equal halves).
# BENCH_BROWSER=0 skips it; BENCH_FPSTIME (default 5s) is how long each
# program's frames are counted.
if [[ ${BENCH_BROWSER:-1} != 0 ]]; then
	echo "running the browser benchmark (chromium)" >&2
	"$GO" run ./internal/canvasdev/canvasbench -dur "${BENCH_FPSTIME:-5s}" -warm "${BENCH_FPSWARM:-10s}" >"$tmp/browser" 2>&1 ||
		{ cat "$tmp/browser" >&2; die "canvasbench failed"; }
	b() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/browser"; }
	mb() { awk -v n="$1" 'BEGIN { printf "%.2f MB", n / 1e6 }'; }
	echo
	echo "Browser: wasm sizes (-trimpath -ldflags='-s -w', cold packages without inlining: webapp.ColdPackages; gzip -9, as served precompressed)"
	# kafkasim.wasm is the page's one binary (engine + canvas); lessonparse
	# loads only when a teacher opens a lesson file; empty is the baseline.
	for w in kafkasim lessonparse empty; do
		raw=$(b "size.$w.raw")
		[[ -n $raw ]] || continue
		row "$w raw" "$(mb "$raw")"
		row "$w gzip" "$(mb "$(b "size.$w.gzip")")"
	done
	total=$(b page.gzip)
	row "page first load gzip" "$(mb "$total")"
	if ((total > 4000000)); then
		echo "  (above the 4 MB gzip target)"
	fi
	echo "The page in headless Chromium (SwiftShader), canvas $(b canvas.size), load average $(b load.before | tr , ' ') before, $(b load.after | tr , ' ') after"
	row "first frame" "$(b firstframe.ms) ms (median of $(b firstframe.samples | tr , ' '))"
	row "(browser's GPU start)" "$(b browser.gpuwait.ms) ms (waited for before navigating: not the page's)"
	row "engine up" "$(b engine.ms) ms"
	row "session ready" "$(b ready.ms) ms"
	row "empty Ebiten fps" "$(b fps.empty)"
	row "reference scene fps" "$(b fps.reference)"
	row "ratio ref/empty" "$(b fps.ratio)"
	if [[ -n $(b fps.empty.ss) ]]; then
		# The stricter baseline: the empty program with the canvas's own
		# single-sampled drawing buffer (the canvas does not pay Ebiten's
		# default multisampling; this ratio counts only kafkasim's drawing)
		row "empty fps, single-sampled" "$(b fps.empty.ss)"
		row "ratio ref/that" "$(b fps.ratio.ss) (CPU: $(b cpu.ratio.ss))"
	fi
	row "scene build" "$(b scene.ms) ms ($(b scenes) scenes)"
	if [[ -n $(b cpu.reference.ms) ]]; then
		# CPU per drawn frame, every thread of every browser process (/proc)
		row "CPU/frame empty" "$(b cpu.empty.ms) ms ($(b cpu.empty.cores) cores busy)"
		row "CPU/frame reference" "$(b cpu.reference.ms) ms ($(b cpu.reference.cores) cores busy)"
		row "ratio empty/ref CPU" "$(b cpu.ratio)"
		row "halves empty, ref" "$(b cpu.empty.halves | tr , ' ') / $(b cpu.reference.halves | tr , ' ') ms (after $(b warm.s) s of warm-up)"
		printf '    %-36s %7s %7s\n' "busiest threads (process/thread)" empty ref
		awk '$1 ~ /^cpu\.thread\./ { split($2, v, ","); printf "    %-36s %7s %7s ms/frame\n", substr($1, 12), v[1], v[2] }' "$tmp/browser"
	fi
	row "virtual ms per wall ms" "$(b virtual.rate) (1.00: the engine kept up at 1x)"
	if awk -v f="$(b firstframe.ms)" 'BEGIN { exit !(f > 1500) }'; then
		echo "  (first frame above the 1.5 s target on this machine)"
	fi
	if awk -v r="$(b fps.ratio)" 'BEGIN { exit !(r < 0.8) }'; then
		echo "  (ratio below the 0.8 target on this machine)"
	fi
fi

# Real Kafka clients: franz-go (100-byte records, 6 partitions, RF 3,
# acks=all, producing while a consumer reads) against kafkasim's listeners
# on a room as `kafkasim serve` runs it (really replicating, in simulated
# time following the wall clock, over serve's simulated local network of
# 1 ms hops, room.LocalNetwork) and against franz-go's kfake (immediate
# writes), in the same run with the same client settings (server/kafka
# BenchmarkFranzGoVsKfake, BENCH_KAFKA_RECORDS records, default 1000000:
# the clients' start, some 15 round trips one after another on either
# side, is then a few percent of a run rather than a quarter of it, as it
# was at 200000, so the figure is the throughput the benchmark is named
# for). One run of each takes about a second, at the mercy of
# whatever else the machine does then, so the benchmark runs
# BENCH_KAFKA_ROUNDS rounds (default 5) of one run each, alternating which
# goes first, and prints medians: each rate, and the ratio of each round's
# two runs (they saw about the same machine), with the rounds' lowest and
# highest. CPU per record is the whole test process's (client and
# server): the figure a loaded machine changes least; the garbage
# collector's share of it follows (runtime/metrics' estimate, which counts
# the collector's workers by wall time and so reads high when other
# processes hold the cores). Then the memory of
# kafkasim alone after BENCH_KAFKA_MEM_RECORDS records (default 5000000;
# BenchmarkServeMemory): the live heap after a fifth of them and after
# all, bounded by the topic's retention, not by what was written; and the
# resident memory of `kafkasim serve` in a process of its own after as
# many records (cmd/kafkasim BenchmarkKafkaServerMemory): the server's
# alone, where the figures before count the clients in the same process;
# with the CPU time each side spent a record (the server's from /proc, the
# clients' in the benchmark's own process), which splits the in-process
# figure: franz-go's producer and consumer are most of it for kafkasim and
# kfake alike, so a change to the server moves that figure by its share only.
KRECS=${BENCH_KAFKA_RECORDS:-1000000}
KROUNDS=${BENCH_KAFKA_ROUNDS:-5}
MRECS=${BENCH_KAFKA_MEM_RECORDS:-5000000}
echo "running the Kafka protocol benchmarks (franz-go)" >&2
kload0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
kline=$(KAFKASIM_BENCH_RECORDS=$KRECS KAFKASIM_BENCH_ROUNDS=$KROUNDS $GO test ./server/kafka -run XXX -bench FranzGoVsKfake -benchtime 1x -timeout 30m 2>&1 | grep '^BenchmarkFranzGoVsKfake' || true)
kload1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
mline=$(KAFKASIM_BENCH_RECORDS=$MRECS $GO test ./server/kafka -run XXX -bench ServeMemory -benchtime 1x -timeout 30m 2>&1 | grep '^BenchmarkServeMemory' || true)
sline=$(KAFKASIM_BENCH_RECORDS=$MRECS $GO test ./cmd/kafkasim -run XXX -bench KafkaServerMemory -benchtime 1x -timeout 30m 2>&1 | grep '^BenchmarkKafkaServerMemory' || true)
kv() { awk -v u="$1" '{ for (i = 2; i <= NF; i++) if ($(i) == u) print $(i-1) }' <<<"$2"; }
if [[ -n $kline ]]; then
	echo
	echo "Kafka protocol: franz-go, $KRECS records of 100 bytes, 6 partitions, RF 3, acks=all"
	echo "(median of $(kv rounds "$kline" | cut -d. -f1) rounds, kafkasim and kfake alternating first; load average $kload0 before, $kload1 after)"
	row "kafkasim records/s" "$(human "$(kv kafkasim-rec/s "$kline")")"
	row "kfake records/s" "$(human "$(kv kfake-rec/s "$kline")")"
	row "ratio kafkasim/kfake" "$(awk -v r="$(kv ratio "$kline")" 'BEGIN { printf "%.2f", r }')"
	row "ratio, rounds" "$(awk -v a="$(kv ratio-min "$kline")" -v b="$(kv ratio-max "$kline")" 'BEGIN { printf "%.2f to %.2f", a, b }')"
	row "kafkasim acked/s" "$(human "$(kv kafkasim-produce-rec/s "$kline")")"
	row "kfake acked/s" "$(human "$(kv kfake-produce-rec/s "$kline")")"
	row "kafkasim CPU/record" "$(kv kafkasim-cpu-ns/rec "$kline") ns"
	row "kfake CPU/record" "$(kv kfake-cpu-ns/rec "$kline") ns"
	row "kafkasim GC CPU/record" "$(kv kafkasim-gc-ns/rec "$kline") ns"
	row "kfake GC CPU/record" "$(kv kfake-gc-ns/rec "$kline") ns"
	if awk -v r="$(kv ratio "$kline")" 'BEGIN { exit !(r < 1) }'; then
		echo "  (below the 1.0 target on this machine)"
	fi
else
	echo "bench: the Kafka protocol benchmark did not run" >&2
fi
if [[ -n $mline ]]; then
	echo "kafkasim alone, $MRECS records (topic retention: 10 MB per partition)"
	row "records kept" "$(kv records-kept "$mline")"
	row "live heap at a fifth" "$(kv heap-fifth-MiB "$mline") MiB"
	row "live heap at the end" "$(kv heap-MiB "$mline") MiB"
	row "process RSS (peak)" "$(kv rss-MiB "$mline") MiB ($(kv peak-rss-MiB "$mline"))"
else
	echo "bench: the Kafka memory benchmark did not run" >&2
fi
if [[ -n $sline ]]; then
	echo "kafkasim serve in its own process (no client in it), $MRECS records"
	row "server RSS at a fifth" "$(kv server-rss-fifth-MiB "$sline") MiB"
	row "server RSS at the end" "$(kv server-rss-MiB "$sline") MiB ($(kv server-peak-rss-MiB "$sline") peak)"
	row "server CPU/record" "$(awk -v n="$(kv server-cpu-ns/rec "$sline")" 'BEGIN { printf "%.0f ns", n }')"
	row "client CPU/record" "$(awk -v n="$(kv client-cpu-ns/rec "$sline")" 'BEGIN { printf "%.0f ns", n }')"
else
	echo "bench: the Kafka server memory benchmark did not run" >&2
fi
