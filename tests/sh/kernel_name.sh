#!/bin/sh
# kernel_name.sh: `banklab kernel PROGRAM.cu --model --name K` on a file with main() (no GPU):
# --name selects among the kernels main's run launched, with main's launch and data (the
# executed figures, "executed: main's launch"), not a reading at a launch of its own: by a
# plain name, a name without its namespace, a template's name (every instance main launched)
# and one instance; the figures equal those of the whole file's run; a name the file lacks is
# refused before the program runs. Needs nvcc (SKIP without).
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}"
. tests/sh/lib.sh kernel_name.sh
export CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR="$tmp/run" XDG_CACHE_HOME="${BANKLAB_TEST_CACHE:-$tmp/cache}" BANKLAB_KERNEL_SERVER=0
mkdir -p "$tmp/run" && chmod 700 "$tmp/run"
command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || { echo "SKIP: no nvcc"; exit 77; }
P=tests/gpu/devprogs/dynsmem_template.cu
timeout 120 "$BANKLAB" kernel "$P" --model >"$tmp/all" 2>&1 || fail "the whole file: exit $?: $(tail -n 3 "$tmp/all")"
# the figure rows of one kernel's table in a report: from its heading to the next heading
table() { awk -v k="$2" 'index($0, ": " k "<<<") { on = 1; print; next } /<<<.*: the model/ { on = 0 } on && /^ +[0-9]+ +[0-9]/' "$1"; }
for case in "table_walk|dyn::table_walk" "dyn::table_walk|dyn::table_walk" "big_reverse|dyn::big_reverse" \
            "rotate_rows<double>|dyn::rotate_rows<double>"; do
    name=${case%%|*} shown=${case#*|}
    timeout 120 "$BANKLAB" kernel "$P" --model --name "$name" >"$tmp/one" 2>&1 || fail "--name $name: exit $?"
    grep -q "^executed: main's launch" "$tmp/one" || fail "--name $name: not main's run: $(grep '<<<' "$tmp/one" | head -n 2)"
    [ "$(grep -c 'the model.s prediction' "$tmp/one")" = 1 ] || fail "--name $name: not one kernel: $(grep -c 'the model.s prediction' "$tmp/one")"
    table "$tmp/one" "$shown" >"$tmp/a"; table "$tmp/all" "$shown" >"$tmp/b"
    if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then ok "--name $name: main's run, the whole file's figures"
    else fail "--name $name: its table differs from the whole run's:"; diff "$tmp/b" "$tmp/a" | head -n 8; fi
done
timeout 120 "$BANKLAB" kernel "$P" --model --name rotate_rows >"$tmp/one" 2>&1 || fail "--name rotate_rows: exit $?"
[ "$(grep -c "^executed: main's launch" "$tmp/one")" = 2 ] || fail "--name rotate_rows: not both instances main launched: $(grep '<<<' "$tmp/one")"
timeout 60 "$BANKLAB" kernel "$P" --model --name no_such_kernel >"$tmp/one" 2>&1; rc=$?
[ $rc = 2 ] || fail "--name no_such_kernel: exit $rc, not 2"
grep -q "no __global__ function no_such_kernel" "$tmp/one" || fail "--name no_such_kernel: $(cat "$tmp/one")"
grep -q "program's own output" "$tmp/one" && fail "--name no_such_kernel: the program ran before the name was refused"
finish
