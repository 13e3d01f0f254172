#!/bin/sh
# build.sh — builds a PPCA 2014 student's Player into a bot for the referee (README.md).
#
#   adapters/ppca/build.sh [-o OUT] PLAYER.cpp [MORE.cpp ...] [-- EXTRA_G++_FLAGS ...]
#
# The directory of the first .cpp comes first in -I, so the student's own player.h (with
# its added members) is the one every file sees; the original client's headers may lie
# beside it (prelude.h makes them harmless).  OUT defaults to ./bot.  $CXX (g++) and
# $CXXFLAGS (-O2) are honoured.
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=bot
first=
n=0
for arg in "$@"; do n=$((n + 1)); done
# Rebuild the argument list: sources, then -- flags, with -o OUT taken out.
i=0
take_out=0
sources_done=0
for arg in "$@"; do
    i=$((i + 1))
    if [ "$take_out" = 1 ]; then out=$arg; take_out=0; continue; fi
    if [ "$sources_done" = 0 ] && [ "$arg" = "-o" ]; then take_out=1; continue; fi
    if [ "$sources_done" = 0 ] && [ "$arg" = "--" ]; then sources_done=1; continue; fi
    if [ "$sources_done" = 0 ] && [ -z "$first" ]; then first=$arg; fi
    set -- "$@" "$arg"
done
shift "$n"
if [ -z "$first" ]; then
    echo "usage: $0 [-o OUT] PLAYER.cpp [MORE.cpp ...] [-- EXTRA_G++_FLAGS ...]" >&2
    exit 2
fi
dir=$(dirname "$first")
# shellcheck disable=SC2086  # $CXXFLAGS is a list of flags
exec "${CXX:-g++}" -std=c++11 ${CXXFLAGS:--O2} -include "$here/prelude.h" -I "$dir" -I "$here" \
    "$@" "$here/main.cpp" "$here/query.cpp" -o "$out"
