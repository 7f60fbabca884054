#!/usr/bin/env bash
# Fails if core/ (non-test code) imports I/O, clock or OS packages, starts
# goroutines or reads the wall clock. The core must be a deterministic state
# machine: virtual time, one seeded PRNG, commands in, events out.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
banned='^(os|os/exec|os/signal|net|net/http|syscall|time|math/rand|math/rand/v2|crypto/rand|sync|runtime|unsafe|io/ioutil|path/filepath)$'
while read -r pkg imports; do
	for imp in $imports; do
		if [[ $imp =~ $banned ]]; then
			echo "purity: $pkg imports $imp"
			bad=1
		fi
	done
done < <(go list -f '{{.ImportPath}} {{join .Imports " "}}' ./core/...)
if grep -rnE '(^|[^.[:alnum:]_])go (func|[[:alnum:]_.]+\()|time\.(Now|Since|Sleep|After|Tick)' --include='*.go' core | grep -v '_test.go:'; then
	echo "purity: goroutines or wall-clock calls in core/"
	bad=1
fi
exit $bad
