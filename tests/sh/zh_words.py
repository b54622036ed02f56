#!/usr/bin/env python3
"""zh_words.py: English words in text a Chinese learner sees (tests/sh/lang_zh.sh).

--sources FILE...: instead, every zh text of those sources (lessons' "zh" strings, string
literals holding Chinese in C sources and tables) must not have an ASCII ':' '(' or ','
directly after a Chinese character outside `code` (prose takes ：（，); exit 1 naming each.

--punct (before the files): the captures too must not have an ASCII ':' '(' or ',' directly
after a Chinese character outside `code` (the rendered text: screens, the SVG, the kernel's
notes), one line "WHAT: ASCII ..." each.

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
  wavefront, block, tile, load, store, kernel), and units;
- banklab's commands (sim, check, ...), the languages' codes (zh, en), a mask in hex.
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
Unicode Unix root ssh cubin nvrtc cupti sanitizer Sanitizer CuPy PyTorch
zh en
sim check bench verify lab report serve run
""".split())
# words outside banklab's control that the lessons quote as they are: CUDA's error text
# ("invalid argument", "misaligned address"). (The recording's device description is said in
# Chinese: "SM 时钟 1979 MHz".)
ALLOW |= {"invalid", "argument", "misaligned", "address"}

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
            if t in ALLOW:
                continue                      # a quoted name ("not-recorded")
            if not t or CODE.search(t):
                # a hyphenated English word ("conflict-free") is still prose
                if re.fullmatch(r"[a-z]+(-[a-z]+)+", t or ""):
                    parts = [p for p in t.split("-") if p not in ALLOW and len(p) > 1]
                    if parts:
                        yield t
                continue
            if not t.isascii() or not t.isalpha() or len(t) == 1 or t in ALLOW:
                continue
            if re.fullmatch(r"[0-9a-f]{8}", t):
                continue                      # a mask in hex ("ffffffff")
            if t.isupper() or re.fullmatch(r"[A-Z]+s", t):
                continue                      # CAPITALS: a parameter, an acronym
            if re.search(r"[a-z][A-Z]", t):
                continue                      # camelCase: code
            if t.lower() in ALLOW and t[0].isupper() and t[1:].islower():
                continue                      # "Bank" at a sentence start in a name
            yield t


# ---- --sources: ASCII ':' '(' ',' right after a Chinese character in a zh source text ----

CJK_ASCII = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff][:(,]")


def punct_hits(where, text, out):
    """ASCII : ( , directly after a Chinese character, outside `code`: prose wants ：（，"""
    plain = re.sub(r"`[^`]*`", lambda m: "`" * len(m.group(0)), text)
    for m in CJK_ASCII.finditer(plain):
        out.append("%s: ASCII '%s' after a Chinese character (write %s): ...%s..." % (
            where, m.group(0)[1], {":": "：", "(": "（", ",": "，"}[m.group(0)[1]],
            text[max(0, m.start() - 12):m.end() + 12]))


def c_literals(line):
    return [x for x in re.findall(r'"((?:[^"\\]|\\.)*)"', line) if re.search(r"[\u4e00-\u9fff]", x)]


def sources(paths):
    """Every zh text of the given sources: lessons/*.json (each "zh" string), and C sources and
    tables (src/base/msg.def, src/ui/strings.def, src/keys/keys.def, src/cli/lab.c, lab_text.c:
    each string literal holding Chinese)."""
    import json
    out = []

    def walk(o, path, f):
        if isinstance(o, dict):
            for k, v in o.items():
                if k == "zh" and isinstance(v, str):
                    punct_hits("%s %s" % (f, path), v, out)
                else:
                    walk(v, path + "." + k, f)
        elif isinstance(o, list):
            for i, v in enumerate(o):
                walk(v, "%s[%d]" % (path, i), f)

    for f in paths:
        if f.endswith(".json"):
            with open(f, encoding="utf-8") as fh:
                walk(json.load(fh), "", f)
        else:
            with open(f, encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    for lit in c_literals(line):
                        punct_hits("%s:%d" % (f, n), lit, out)
    for line in out:
        print(line)
    return 1 if out else 0


def main():
    bad = 0
    what = "?"
    seen = set()
    args = sys.argv[1:]
    if args and args[0] == "--sources":
        return sources(args[1:])
    punct = False
    if args and args[0] == "--punct":
        punct, args = True, args[1:]
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
                if punct:
                    hits = []
                    punct_hits(what, line, hits)
                    for h in hits:
                        print(h)
                        bad = 1
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
