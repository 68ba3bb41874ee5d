#!/bin/sh
# Installs a timerwheel build tree into a scratch prefix, then builds and
# runs C programs against the install the way a C user would:
#   pkgconfig: cc $(pkg-config --cflags --libs timerwheel) program.c
#   compat:    the same, with -I$(pkg-config --variable=compatdir timerwheel),
#              for a ccan/timer program and a HiTime program, unchanged.
#   lto:       a C API program and the ccan/timer program against the static
#              library, compiled and linked with -flto (GCC, TIMERWHEEL_C_LTO):
#              they link and run, and (with INLINED 1: a library built with
#              optimisation) the C program's hot loop calls neither
#              tw_schedule nor tw_cancel, inlined; and (INLINED 1) the C
#              program without -flto: it links to the same library's machine
#              code and calls them.
# Usage: consumer_test.sh MODE BUILD_DIR WORK_DIR SOURCE_DIR CC [EXTRA_FLAGS [INLINED]]
# EXTRA_FLAGS: the sanitizer flags the library was built with, if any.
set -eu
mode=$1 build=$2 work=$3 src=$4 cc=$5 extra=${6:-} inlined=${7:-1}
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
  lto)
    compat=$(pkg-config --variable=compatdir timerwheel)
    archive="$libdir/libtimerwheel_c.a"
    [ -f "$archive" ] || { echo "no static library $archive"; exit 1; }
    # calls NAME: the calls to tw_schedule and tw_cancel in NAME's churn().
    calls() {
      objdump -d --no-show-raw-insn "$work/$1" | awk '/<churn[.a-z_0-9]*>:/,/^$/' |
        grep -c 'call.*<tw_\(schedule\|cancel\)' || true
    }
    # The ccan/timer program, through the drop-in: it links and runs with
    # -flto (it links without in the compat mode). For a library without
    # optimisation, whose links take longest and inline nothing, the C
    # program with -flto alone.
    for lto in -flto ""; do
      names=lto_consumer
      [ "$inlined" = 1 ] && [ -n "$lto" ] && names="lto_consumer ccan_consumer"
      [ "$inlined" = 1 ] || [ -n "$lto" ] || names=
      for name in $names; do
        echo "+ $cc -std=c11 -O2 $lto -I$compat $src/$name.c $archive -lstdc++ -lm $extra"
        # shellcheck disable=SC2046,SC2086
        "$cc" -std=c11 -Wall -Wextra -Werror -O2 $lto "-I$compat" \
          $(pkg-config --cflags timerwheel) "$src/$name.c" -o "$work/$name" \
          "$archive" -lstdc++ -lm $extra
        "$work/$name"
        [ "$name" = lto_consumer ] || continue
        n=$(calls "$name")
        if [ -n "$lto" ] && [ "$inlined" = 1 ] && [ "$n" != 0 ]; then
          echo "with -flto, churn() still calls tw_schedule or tw_cancel ($n): not inlined"
          exit 1
        fi
        if [ -z "$lto" ] && [ "$n" = 0 ]; then
          echo "without -flto, churn() calls neither tw_schedule nor tw_cancel: expected calls"
          exit 1
        fi
        echo "churn() calls tw_schedule or tw_cancel $n times"
      done
    done
    ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
echo OK
