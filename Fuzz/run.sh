#!/bin/sh
# Runs one of WebRecord's libFuzzer targets for a while.
#
#   Fuzz/run.sh TARGET SECONDS [EXTRA LIBFUZZER FLAGS...]
#   WEBRECORD_FUZZ_LEAKS=0 Fuzz/run.sh TARGET SECONDS     (leak detection off)
#
# TARGET is json-reader or population; build it first with Fuzz/build.sh. The corpus
# lives in Fuzz/.build/corpus/TARGET and is seeded, on every run, from the test fixtures:
# the JSONTestSuite files, the App.net/Foursquare/Atlassian responses, and the inputs kept
# in Tests/WebRecordTests/Fixtures/Fuzz/ (small hostile App.net-shaped documents and
# every crasher found). Crashes are written to Fuzz/.build/crashes/TARGET/,
# the log to Fuzz/.build/logs/TARGET/fuzz-0.log. One job on one core (-jobs=1), so other
# work goes on.
set -eu

if [ $# -lt 2 ]; then
    echo "usage: Fuzz/run.sh TARGET SECONDS [LIBFUZZER FLAGS...]" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$fuzz_dir/.." && pwd)
out=${WEBRECORD_FUZZ_BUILD:-$fuzz_dir/.build}
binary="$out/$target"
if [ ! -x "$binary" ]; then
    echo "run.sh: $binary is not built; run Fuzz/build.sh $target" >&2
    exit 1
fi

corpus="$out/corpus/$target"
seeds="$out/seeds/$target"
crashes="$out/crashes/$target"
mkdir -p "$corpus" "$seeds" "$crashes"
fixtures="$root/Tests/WebRecordTests/Fixtures"
cp "$fixtures"/JSONTestSuite/test_parsing/*.json "$seeds/"
cp "$fixtures"/mmrecord/*.json "$seeds/"
if [ -d "$fixtures/Fuzz" ]; then
    find "$fixtures/Fuzz" -type f ! -name '*.md' -exec cp {} "$seeds/" \;
fi

# With -jobs, libFuzzer runs the fuzzer in a child process that logs to fuzz-0.log in the
# current directory: keep that log with the other run files.
logs="$out/logs/$target"
mkdir -p "$logs"
cd "$logs"
# Let libFuzzer and AddressSanitizer report crashes, not the Swift runtime's backtracer.
export SWIFT_BACKTRACE=enable=no
# WEBRECORD_FUZZ_LEAKS=0 turns leak detection off, both libFuzzer's and LeakSanitizer's at
# exit, to look for other failures while a known leak is being fixed.
leaks=${WEBRECORD_FUZZ_LEAKS:-1}
if [ "$leaks" = 0 ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
exec "$binary" "$corpus" "$seeds" \
    -dict="$fuzz_dir/json.dict" \
    -max_total_time="$seconds" -jobs=1 -workers=1 \
    -max_len=131072 -rss_limit_mb=4096 -timeout=30 \
    -artifact_prefix="$crashes/" -print_final_stats=1 -detect_leaks="$leaks" \
    "$@"
