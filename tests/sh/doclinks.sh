#!/bin/sh
# doclinks.sh: every relative link in README.md and docs/*.md ([text](path) or [text](path#part))
# points at a file or directory that exists in the tree; docs/lessons.md has such links.
set -u
fail=0
n=0
for md in README.md docs/*.md; do
    [ -f "$md" ] || continue
    dir=$(dirname "$md")
    # one link target per line: the part between "](" and ")"
    for target in $(grep -o '](\([^)]*\))' "$md" | sed 's/^](\(.*\))$/\1/'); do
        case "$target" in
        http://*|https://*|mailto:*|'#'*) continue ;;
        esac
        path=${target%%#*}
        n=$((n + 1))
        if [ ! -e "$dir/$path" ]; then
            echo "FAIL: $md links to $target: no such file ($dir/$path)"
            fail=1
        fi
    done
done
grep -q '](' docs/lessons.md || { echo "FAIL: docs/lessons.md has no links to check"; fail=1; }
[ $fail -eq 0 ] && echo "doclinks.sh: all passed ($n links)"
exit $fail
