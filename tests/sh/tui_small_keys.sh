#!/bin/sh
# tui_small_keys.sh: while the terminal is too small (the "terminal too small" screen shows),
# no key but quit and help does anything: g, z, t and n open nothing unseen (g opened the
# playground behind the notice before, and the q that the notice offers then went into its
# editor); q quits at once, as the notice says.
. tests/sh/tui_fixtures/lib.sh

start 100 30 -- --lessons lessons --lang en --reset
expect " 1\\.1/"
$TM resize-window -t t -x 50 -y 15
expect "terminal too small: need 72x20"
keys g
sleep 0.3
keys z
sleep 0.3
keys t
sleep 0.3
keys n
sleep 0.3
$TM resize-window -t t -x 100 -y 30
expect " 1\\.1/"
screen | head -n 1 | grep -q "banklab: playground\|banklab: kernel\|banklab: contents" && fail "a key at the too-small screen opened a screen unseen"
echo "ok   g, z, t, n at a too-small terminal: nothing opened, still at 1.1"
$TM resize-window -t t -x 50 -y 15
expect "terminal too small: need 72x20"
keys g
sleep 0.3
keys q
expect "EXITED rc=0" 3
echo "ok   g then q at a too-small terminal: quits"
echo "tui_small_keys: ok"
