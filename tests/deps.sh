#!/bin/sh
# deps.sh: make sure the packages banklab builds and tests with are installed (Debian/Ubuntu).
# As root it installs what is missing with apt-get; otherwise it prints the exact command.
set -u
PKGS="make gcc pkg-config libncurses-dev libcjson-dev libcmocka-dev tmux jq clang libclang-rt-14-dev libxml2-utils librsvg2-bin"
missing=""
for p in $PKGS; do
    case $p in
        libclang-rt-14-dev) dpkg -s libclang-rt-14-dev >/dev/null 2>&1 || dpkg -s libclang-rt-dev >/dev/null 2>&1 || \
            { apt-cache show libclang-rt-14-dev >/dev/null 2>&1 || continue; missing="$missing $p"; } ;;
        *) dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
    echo "banklab: missing packages:$missing (install them with your package manager)" >&2
    exit 1
fi
if [ "$(id -u)" != 0 ]; then
    echo "banklab: missing packages:$missing" >&2
    echo "run:  sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "banklab: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq$missing >/dev/null || {
    echo "banklab: apt-get install failed for:$missing" >&2; exit 1; }
