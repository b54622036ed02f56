#!/usr/bin/env python3
"""refigure.py: after a new recording, bring the figures the lessons quote up to date.

usage: python3 tests/gpu/refigure.py RECORDING [LESSON_DIR] [--write]

Runs `banklab check --recording RECORDING` (BANKLAB, default build/banklab), and for every
figure that no longer holds ("the recording gives X ...; the lesson quotes Y", or "the
tutorial's panel shows X ... replayed from GROUP "LABEL"": the figure then names that record)
replaces Y by X in the figure's "value" and in the zh and en texts of its step (as a whole number: "3495" is
not touched inside "34950"). Without --write it only lists what it would change. Percentages
whose sign changes, and quotes it cannot find in both texts, are listed for a person to
reword: nothing is changed for those. Re-run `banklab check --recording` afterwards.
"""
import os
import re
import subprocess
import sys

MSG = re.compile(r'^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): steps\[\d+\]\.figures\[\d+\]: '
                 r'the recording gives (?P<new>-?[0-9.]+) \((?P<how>.*)\); the lesson quotes (?P<old>-?[0-9.]+)$')
# the record the tutorial's panel replays for the same measurement: the figure takes its value,
# as the panel writes it, and names that record
PANEL = re.compile(r'^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): steps\[\d+\]\.figures\[\d+\]: '
                   r'the tutorial\'s panel shows (?P<new>-?[0-9.]+) \(\d+ decimals?, replayed from '
                   r'(?P<group>[^ ]+) "(?P<label>[^"]*)"\) for (?P<how>.*); the lesson quotes (?P<old>-?[0-9.]+)$')


def number_re(text):
    return re.compile(r'(?<![0-9.])' + re.escape(text) + r'(?![0-9]|\.[0-9])')


def step_start(lines, i):
    """The line where the step holding line i starts (its "id" line)."""
    for k in range(i, -1, -1):
        if re.match(r'^\s*"id":', lines[k]) and k > 0 and re.match(r'^\s*\{\s*$', lines[k - 1]):
            return k
    return 0


def main(argv):
    write = "--write" in argv
    args = [a for a in argv if a != "--write"]
    if not args:
        print(__doc__.strip())
        return 2
    rec = args[0]
    lessons = args[1] if len(args) > 1 else "lessons"
    b = os.environ.get("BANKLAB", "build/banklab")
    out = subprocess.run([b, "check", "--recording", rec, lessons], capture_output=True, text=True)
    todo, manual = [], []
    for line in (out.stdout + out.stderr).splitlines():
        m = MSG.match(line.strip()) or PANEL.match(line.strip())
        if m:
            todo.append(m.groupdict())
        elif "figures[" in line:
            manual.append(line.strip())
    files = {}
    changed = 0
    for t in todo:
        path, ln, old, new = t["file"], int(t["line"]) - 1, t["old"], t["new"]
        lines = files.setdefault(path, open(path, encoding="utf-8").read().split("\n"))
        vm = re.search(r'"value":\s*(-?[0-9.]+)', lines[ln])
        if not vm:
            manual.append("%s:%s: no \"value\" on the figure's line" % (path, t["line"]))
            continue
        value_old = vm.group(1)
        if t.get("label") is not None:
            gm = re.search(r'"group":\s*"[^"]*",\s*"label":\s*"[^"]*"', lines[ln])
            if not gm:
                manual.append("%s:%s: no \"group\", \"label\" on the figure's line" % (path, t["line"]))
                continue
            named = '"group": "%s", "label": "%s"' % (t["group"], t["label"])
            lines[ln] = lines[ln][:gm.start()] + named + lines[ln][gm.end():]
            vm = re.search(r'"value":\s*(-?[0-9.]+)', lines[ln])
        # a percentage is quoted without its sign ("0.2 % below"): the sign is the figure's
        if value_old.startswith("-") != new.startswith("-"):
            manual.append("%s:%s: %s -> %s changes sign: reword the text" % (path, t["line"], value_old, new))
            continue
        old, new_text = old.lstrip("-"), new.lstrip("-")
        start = step_start(lines, ln)
        rx = number_re(old)
        text_hits = {"zh": 0, "en": 0}
        for k in range(start, ln):
            for lang in text_hits:
                if ('"%s":' % lang) in lines[k] and rx.search(lines[k]):
                    text_hits[lang] += 1
        if not all(text_hits.values()):
            # another figure of the step quoted the same number and took it along already
            nx = number_re(new_text)
            if all(any(('"%s":' % lang) in lines[k] and nx.search(lines[k]) for k in range(start, ln))
                   for lang in ("zh", "en")):
                lines[ln] = lines[ln][:vm.start(1)] + new + lines[ln][vm.end(1):]
                print("%s:%s: %s -> %s (%s; the text has it already)" % (path, t["line"], old, new, t["how"]))
                changed += 1
                continue
            manual.append("%s:%s: %s -> %s: not found in both texts of the step" % (path, t["line"], old, new))
            continue
        for k in range(start, ln):
            if '"zh":' in lines[k] or '"en":' in lines[k]:
                lines[k] = rx.sub(new_text, lines[k])
        lines[ln] = lines[ln][:vm.start(1)] + new + lines[ln][vm.end(1):]
        print("%s:%s: %s -> %s (%s)" % (path, t["line"], old, new, t["how"]))
        changed += 1
    if write:
        for path, lines in files.items():
            open(path, "w", encoding="utf-8").write("\n".join(lines))
    for m in manual:
        print("by hand: " + m)
    print("%d figure%s %s; %d by hand" % (changed, "" if changed == 1 else "s",
                                         "updated" if write else "would change", len(manual)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
