#!/usr/bin/env python3
"""zh_words.py: English words in text a Chinese learner sees (tests/sh/lang_zh.sh).

Reads captures from the files given: sections start with a line "### WHAT". Prints one line
per English word found outside code, names and units ("WHAT: 'word' in: <line>") and exits 1
when there is one. What is not a word of English prose:
- code: a token holding a digit, '_', '.', '/', brackets, operators ("s[lane]", "sm_90",
  "docs/gpu.md", "--param"), camelCase ("threadIdx"), CAPITALS ("PAD", "GPU"), one letter
  (keys, names in formulas), C and CUDA keywords;
- names: titles in 《》「」『』“” (also across a line break) and English glossed in
  brackets right after Chinese ("填充（padding）"), names of products, tools and GPUs, key
  names, and the names of the code the learner reads (--allow FILE: one word a line, e.g.
  the identifiers of the lessons' scenes);
- a word cut short for room (ending in "…").
- the terms that Chinese CUDA writing keeps in English (docs/glossary.md: bank, warp, lane,
  wavefront, block, tile, load, store, kernel), and units.
"""
import re
import sys

ALLOW = set("""
bank banks warp warps lane lanes wavefront wavefronts block blocks tile tiles load loads
store stores kernel kernels swizzle
float double char short int long unsigned signed extern const struct typedef if else void
half sizeof min max return lane warp tid
ns ms us MHz GHz KB MB GB KiB MiB GiB B clk
banklab cuda nvcc ncu nvprof sm gcd mod
Nsight Compute Visual Profiler NVIDIA Kepler Maxwell Pascal Volta Turing Ampere Hopper
Blackwell Fermi CuTe CUTLASS Linux
Enter Esc Tab Space Shift Ctrl Up Down Left Right PgUp PgDn Home End BSpace Backspace
AoS SoA SMs Delete
compute-sanitizer cuda-memcheck memcheck racecheck
""".split())
# words outside banklab's control that the lessons and the recording quote as they are:
# CUDA's error text ("invalid argument", "misaligned address") and the recording's device
# description ("SM clock 1979 MHz", written by the runner that recorded it)
ALLOW |= {"invalid", "argument", "misaligned", "address", "clock"}

CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\u3000-\u303f\u2018-\u201f\u2026\u00b7\u2022\u25a0-\u25ff\u2190-\u21ff\u2500-\u259f\u2713\u2717]")
QUOTED = re.compile(r"《[^》]*》|「[^」]*」|『[^』]*』|“[^”]*”")
GLOSS = re.compile(r"(?<=[\u4e00-\u9fff])（[A-Za-z][A-Za-z ,.'-]*）")
CODE = re.compile(r"[0-9_./\\\[\](){}<>=*+&|%#@$^~;:'\"`!?,-]")


CUT = re.compile(r"[A-Za-z0-9_./-]+…")
COMMAND = re.compile(r"\bbanklab [a-z]+")
OPENS = {"《": "》", "「": "」", "『": "』", "“": "”"}


def unquote(line, state):
    """line without its quoted parts; state[0] is the closing mark still awaited, or None
    (a title broken across lines)"""
    out = []
    for c in line:
        if state[0]:
            if c == state[0]:
                state[0] = None
            out.append(" ")
        elif c in OPENS:
            state[0] = OPENS[c]
            out.append(" ")
        else:
            out.append(c)
    return "".join(out)


def english(line):
    line = CUT.sub(" ", line)
    line = COMMAND.sub(" ", line)             # "banklab lab": a command's name
    line = GLOSS.sub(" ", line)
    for chunk in CJK.split(line):
        for tok in chunk.split():
            if ";" in tok:
                continue                      # a statement of code ("scale;")
            t = tok.rstrip(",.:!?")
            if len(t) > 2 and t[0] == "(" and t[-1] == ")":
                t = t[1:-1]                   # "(revealed)": a word in brackets
            if t in ALLOW:
                continue
            t = t.strip("'\"") if t[:1] == t[-1:] and t[:1] in "'\"" else t
            if not t or CODE.search(t):
                # a hyphenated English word ("conflict-free") is still prose
                if re.fullmatch(r"[a-z]+(-[a-z]+)+", t or ""):
                    parts = [p for p in t.split("-") if p not in ALLOW and len(p) > 1]
                    if parts:
                        yield t
                continue
            if not t.isascii() or not t.isalpha() or len(t) == 1 or t in ALLOW:
                continue
            if t.isupper() or re.fullmatch(r"[A-Z]+s", t):
                continue                      # CAPITALS: a parameter, an acronym
            if re.search(r"[a-z][A-Z]", t):
                continue                      # camelCase: code
            if t.lower() in ALLOW and t[0].isupper() and t[1:].islower():
                continue                      # "Bank" at a sentence start in a name
            yield t


def main():
    bad = 0
    what = "?"
    seen = set()
    args = sys.argv[1:]
    while len(args) >= 2 and args[0] == "--allow":
        with open(args[1], encoding="utf-8") as f:
            ALLOW.update(w.strip() for w in f if w.strip())
        args = args[2:]
    for path in args:
        with open(path, encoding="utf-8", errors="replace") as f:
            state = [None]
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("### "):
                    what = line[4:]
                    state = [None]
                    continue
                for w in english(unquote(line, state)):
                    key = (w, line.strip())
                    if key in seen:
                        continue
                    seen.add(key)
                    print("%s: '%s' in: %s" % (what, w, line.strip()))
                    bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
