#!/bin/sh
# Installs a timerwheel build tree into a scratch prefix, then builds and
# runs C programs against the install the way a C user would:
#   pkgconfig: cc $(pkg-config --cflags --libs timerwheel) program.c
#   compat:    the same, with -I$(pkg-config --variable=compatdir timerwheel),
#              for a ccan/timer program and a HiTime program, unchanged.
# Usage: consumer_test.sh MODE BUILD_DIR WORK_DIR SOURCE_DIR CC [EXTRA_FLAGS]
# EXTRA_FLAGS: the sanitizer flags the library was built with, if any.
set -eu
mode=$1 build=$2 work=$3 src=$4 cc=$5 extra=${6:-}
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" --component timerwheel_Development >"$work/install.log"
pc=$(find "$work/prefix" -name timerwheel.pc | head -n 1)
[ -n "$pc" ] || { echo "timerwheel.pc not installed"; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")"
libdir=$(pkg-config --variable=libdir timerwheel)
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
run() {
  name=$1
  shift
  echo "+ $cc -std=c11 -Wall -Wextra -Werror $* $src/$name.c $(pkg-config --cflags --libs timerwheel) $extra"
  # shellcheck disable=SC2046,SC2086
  "$cc" -std=c11 -Wall -Wextra -Werror "$@" "$src/$name.c" -o "$work/$name" \
    $(pkg-config --cflags --libs timerwheel) $extra
  "$work/$name"
}
case "$mode" in
  pkgconfig) run pkgconfig_consumer ;;
  compat)
    compat=$(pkg-config --variable=compatdir timerwheel)
    [ -f "$compat/ccan/timer/timer.h" ] && [ -f "$compat/hitime.h" ] || { echo "compat headers missing"; exit 1; }
    run ccan_consumer "-I$compat"
    run hitime_consumer "-I$compat"
    ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
echo OK
