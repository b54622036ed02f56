#!/bin/sh
# state_link.sh: the state directory ($XDG_STATE_HOME/banklab) reached through another user's
# symbolic link is refused, saying whose link it is, and nothing is written where the link
# points (stat followed it before: the progress went wherever that user pointed the link,
# into a directory of this user's). The link may be the state directory itself or any
# component above it; a link of this user's own (or root's) is still followed. Needs root
# (to make a link of another user's); otherwise SKIP. Env: BANKLAB.
set -u
. tests/sh/lib.sh state_link.sh
B=$BANKLAB
sandbox
[ "$(id -u)" = 0 ] || { echo "SKIP: not root: cannot make another user's link"; exit 77; }
other=65534
lab() { "$B" lab tests/labs/lab-basic.json --no-gpu --answers PAD=1,STRIDE=1 > "$tmp/out" 2> "$tmp/err"; }

# the state directory itself: another user's link to a directory of ours
mkdir -p "$tmp/mine" "$tmp/evil" && chmod 700 "$tmp/mine"
ln -s "$tmp/mine" "$tmp/evil/banklab" && chown -h $other "$tmp/evil/banklab"
XDG_STATE_HOME="$tmp/evil" lab
rc=$?
[ $rc = 2 ] && grep -q "evil/banklab is a symbolic link of uid $other, neither this user nor root: not used" "$tmp/err" &&
    [ -z "$(ls -A "$tmp/mine")" ] && ok "another user's link as the state directory: refused, nothing written (exit 2)" ||
    fail "another user's link as the state directory: exit $rc: $(cat "$tmp/err") [$(ls -A "$tmp/mine" | tr '\n' ' ')]"

# a component above it: XDG_STATE_HOME is another user's link
mkdir -p "$tmp/mine2/banklab" && chmod 700 "$tmp/mine2/banklab"
ln -s "$tmp/mine2" "$tmp/evil2" && chown -h $other "$tmp/evil2"
XDG_STATE_HOME="$tmp/evil2" lab
rc=$?
[ $rc = 2 ] && grep -q "evil2 is a symbolic link of uid $other" "$tmp/err" && [ -z "$(ls -A "$tmp/mine2/banklab")" ] &&
    ok "another user's link above the state directory: refused (exit 2)" ||
    fail "a link above: exit $rc: $(cat "$tmp/err") [$(ls -A "$tmp/mine2/banklab" | tr '\n' ' ')]"

# our own link: followed, the progress saved where it points
mkdir -p "$tmp/mine3" "$tmp/own" && chmod 700 "$tmp/mine3"
ln -s "$tmp/mine3" "$tmp/own/banklab"
XDG_STATE_HOME="$tmp/own" lab
rc=$?
[ $rc = 0 ] && [ -f "$tmp/mine3/progress.json" ] && ok "a link of this user's own: followed (exit 0)" ||
    fail "own link: exit $rc: $(cat "$tmp/err")"

finish
