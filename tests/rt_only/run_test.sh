#!/bin/sh
# run_test.sh - the runtime-only test on the fake driver: compile
# two_kernels.tirx host-only with tirxc, give it a stand-in PTX, and run it
# with run_saved, which links libtirx_rt alone.
#
#   run_test.sh TIRXC STAND_IN RUN_SAVED FAKE_DRIVER SRC WORKDIR
set -eu
tirxc=$1 stand_in=$2 run_saved=$3 fake=$4 src=$5 work=$6
mkdir -p "$work"
"$tirxc" "$src" --emit=executable --host-only --arch=sm_90a -o "$work/two.host.tirxexe"
"$stand_in" "$work/two.host.tirxexe" "$work/two.fake.tirxexe"
exec "$run_saved" "$work/two.fake.tirxexe" "$fake"
