#!/usr/bin/env bash
# Fails if a tracked file names a path outside the repository: the repo
# must stand on its own, so what it cites lives in docs/ (docs/scenario.md,
# docs/kafka-facts.md) and links stay inside the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)
bad=0
# The patterns are spelled in pieces so that this script does not match itself.
dotdot='\.\./'"shared"
abs='/'"work"'/'
if git ls-files -z | xargs -0 grep -nIE "${dotdot}|${abs}" --; then
	echo "selfcontained: the lines above name a path outside the repository (cite docs/ instead)"
	bad=1
fi
# Relative Markdown links must resolve inside the repository.
while IFS= read -r md; do
	dir=$(dirname "$md")
	while IFS= read -r target; do
		case "$target" in
		http://* | https://* | mailto:* | '#'*) continue ;;
		esac
		path=${target%%#*}
		[ -z "$path" ] && continue
		full=$(realpath -m "$dir/$path")
		case "$full" in
		"$root" | "$root"/*) ;;
		*)
			echo "selfcontained: $md links to $target, outside the repository"
			bad=1
			;;
		esac
	done < <(grep -oE '\]\([^) ]+\)' "$md" | sed -E 's/^\]\((.*)\)$/\1/')
done < <(git ls-files '*.md')
exit $bad
