# tui_fixtures/guard.sh: what compile_guard.sh and tui_kernel_guard.sh share (sourced, after TAG is set):
#   tagged             the pids whose environment holds the line $TAG
#   peak               the largest VmPeak (kB) of a tagged compiler process
#   hostile_sources D  writes D/zero.cu (#include "/dev/zero") and D/macro.cu (a macro of 2^40
#                      tokens): compiles that never end on their own
tagged() {
    for f in /proc/[0-9]*/environ; do
        { tr '\0' '\n' <"$f"; } 2>/dev/null | grep -qx "$TAG" && { p=${f#/proc/}; echo "${p%/environ}"; }
    done
}
peak() {
    m=0
    for p in $(tagged); do
        case $(cat "/proc/$p/comm" 2>/dev/null) in nvcc|cicc|cudafe++|gcc|cc1plus|ptxas) ;; *) continue ;; esac
        v=$(awk '/^VmPeak/ { print $2 }' "/proc/$p/status" 2>/dev/null)
        [ -n "$v" ] && [ "$v" -gt "$m" ] && m=$v
    done
    echo $m
}
hostile_sources() {
    printf '#include "/dev/zero"\n__global__ void k(int *p) { p[0] = 1; }\n' >"$1/zero.cu"
    { echo '#define X0 x'; i=1; while [ $i -le 40 ]; do echo "#define X$i X$((i-1)) X$((i-1))"; i=$((i+1)); done
      echo 'int big[] = { X40 };'; echo '__global__ void k(int *p) { p[0] = 1; }'; } >"$1/macro.cu"
}
