# lib.sh: what the GPU scripts share. `. tests/gpu/lib.sh` (or "$dir/lib.sh").
# The scripts end only the processes they started: every process started under a tag carries
# BANKLAB_TEST_TAG=TAG in its environment (children inherit it, whatever their process group
# or session), and tagged/kill_tagged find them by it, never by a command name.
#   tagged TAG           the pids of live processes carrying TAG (not this shell)
#   kill_tagged SIG TAG  sends SIG to each; returns 0 when none was left to signal
tagged() {
    for d in /proc/[0-9]*; do
        p=${d#/proc/}
        [ "$p" = "$$" ] && continue
        { tr "\0" "\n" < "$d/environ"; } 2>/dev/null | grep -qx "BANKLAB_TEST_TAG=$1" && echo "$p"
    done
}
kill_tagged() {
    pids=$(tagged "$2")
    [ -z "$pids" ] && return 0
    # shellcheck disable=SC2086
    kill "-$1" $pids 2>/dev/null
    return 1
}
