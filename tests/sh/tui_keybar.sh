#!/bin/sh
# run.sh: light (it waits on tmux screens, computing little)
# tui_keybar.sh: the key bar offers only keys that act. A walk over every step of every
# shipped lesson at 80x24 (English, and Chinese over chapter 1): on each step each key of
# the bar that acts on the step (h, s, i, Q, a lesson's parameter keys, t, a, w, b, n) is
# pressed and must not be refused ("no more hints", "answer first", "last step of the course",
# "this is the first step", "... stays in 0..8" for both keys of a pair, ...); h again while
# the bar offers it. Screens the keys open are left with Esc. Also: the help no longer says
# a reveal counts as wrong.
. tests/sh/tui_fixtures/lib.sh
L=lessons
set -f   # keys such as ? must not glob

REFUSED_EN='this step has no hints|no more hints|nothing hidden on this step|last step of the course|this is the first step|answer first|nothing to inspect|no grid to export|no scene to sweep|no parameter to sweep|no scene on this step|names no values other than|stays in -?[0-9]+\.\.|has one element type|block has one warp|code has one access|no parameter to set'
REFUSED_ZH='本步没有提示|没有更多提示|本步没有隐藏的内容|整个课程的最后一步|这是第一步|先作答，再|先作答（|本步没有可检查|没有可导出的网格|本步没有可扫描|没有可扫描的参数|本步没有场景|题目没有指定场景以外的取值|只能在 -?[0-9]+\.\.|只有一种元素类型|只有一个 warp|只有一次访问|没有可设定的参数'

bar() { tail -n 1 "$TMP/screen.txt"; }
offers() { bar | grep -qE "(^| )$1 "; }   # offers KEYS: the bar has "KEYS word"
place() { sed -n '1s/^ *\([0-9]*\.[0-9]*\)\/.*/\1/p' "$TMP/screen.txt"; }
refused() { bar | grep -oE -- "$REFUSED" | head -n 1; }   # the message stands on the bar's line

# press KEY and look once banklab has drawn for it (press_drawn, tui_fixtures/lib.sh): refused
# (the message) or not; screens opened are left with Esc
press() {
    press_drawn 250 "$1"
    r=$(refused)
    [ -n "$r" ] && fail "$where: '$1' offered by the bar is refused: $r"
    case $(bar) in
    *"Esc/s back"*|*"Esc/c back"*|*"Esc back"*|*"i/Esc leave"*) press_drawn 200 Escape ;;
    esac
}

walk() { # LANG LAST [CHAPTER]: walk from CHAPTER.1 (1.1) to step LAST (c.s) or the end
    lang=$1 last=$2
    start 80 24 BANKLAB_TIMING="$TIMING" -- --lessons $L --lang "$lang" --reset --chapter "${3:-1}" --step 1
    expect " ${3:-1}\\.1/"
    n=0
    while :; do
        n=$((n + 1))
        [ $n -gt 200 ] && fail "the walk does not end"
        press_drawn 200 PPage    # a message over the bar goes at a key: the whole bar
        where="$lang $(place)"
        # the hints while the bar offers h
        k=0
        while offers h && [ $k -lt 6 ]; do press h; k=$((k + 1)); screen >"$TMP/screen.txt"; done
        for key in s i Q t a w; do
            screen >"$TMP/screen.txt"
            offers "$key" && press "$key"
        done
        # a lesson's parameter keys "p/P NAME": one of the pair moves, then the other
        for pair in $(bar | grep -oE '(^| )[[:alpha:]]/[[:alpha:]] [A-Za-z_][A-Za-z_0-9]*' | \
                      sed 's/^ //; s/ .*//'); do
            lo=${pair%/*} hi=${pair#*/}
            press_drawn 200 "$hi"
            r1=$(refused)
            press_drawn 200 "$lo"
            r2=$(refused)
            [ -n "$r1" ] && [ -n "$r2" ] && fail "$where: both $pair refused: $r1"
        done
        screen >"$TMP/screen.txt"
        if offers b; then
            press b
            [ "$(place)" != "${where#* }" ] || fail "$where: b did not go back"
            press_drawn 250 n
            [ "$(place)" = "${where#* }" ] || press_drawn 0 n
        fi
        [ "${where#* }" = "$last" ] && break
        screen >"$TMP/screen.txt"
        offers n || break
        before=$(place)
        press n
        # an open question below the reading area: shown, and n again goes on
        [ "$(place)" = "$before" ] && press n
        [ "$(place)" != "$before" ] || fail "$where: n did not go on"
    done
    echo "$lang: walked $n steps to $(place)"
    keys q
}

REFUSED=$REFUSED_EN
walk en "" ${KEYBAR_FROM:-1}
REFUSED=$REFUSED_ZH
walk zh 2.1

# the help says what a reveal does (no "counts as wrong": a revealed step is revealed)
start 80 24 -- --lessons $L --lang en --reset
expect " 1\\.1/"
keys '?'
expect "reveal"
grep -q "counts as wrong" "$TMP/screen.txt" && fail "the help says a reveal counts as wrong"
keys q
echo "tui_keybar: ok"
exit 0
