#!/bin/sh
# Builds WebRecord's libFuzzer targets.
#
#   Fuzz/build.sh [TARGET...]        TARGET: json-reader, population (default: both)
#
# The library's sources and every target are compiled once, into one module (the JSON reader
# throws the library's WebRecordError, so no folder stands alone), with libFuzzer and
# AddressSanitizer, and linked against the system libsqlite3, into Fuzz/.build/webrecord-fuzz
# (or $WEBRECORD_FUZZ_BUILD). Each target's name is a symbolic link to it, and the binary
# fuzzes the target it was started as (Fuzz/FuzzMain.swift): Fuzz/.build/json-reader,
# Fuzz/.build/population. Naming targets only checks their names: one build makes them all.
# The targets are not package targets: `swift build` and `swift test` never build them. A copy
# of the App.net schema, which the population target loads, goes next to the binary.
#
# Environment:
#   WEBRECORD_FUZZ_BUILD     output directory (default: Fuzz/.build)
#   WEBRECORD_FUZZ_SANITIZE  sanitizers (default: fuzzer,address)
#   WEBRECORD_FUZZ_OPTIMIZE  the optimization level (default: -O)
#   SWIFTC                   the compiler (default: swiftc)
set -eu

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$fuzz_dir/.." && pwd)
out=${WEBRECORD_FUZZ_BUILD:-$fuzz_dir/.build}
sanitize=${WEBRECORD_FUZZ_SANITIZE:-fuzzer,address}
swiftc=${SWIFTC:-swiftc}
# One compile job per core: the library is compiled file by file, and one job at a time took
# about five minutes a target on two cores.
jobs=$(nproc 2>/dev/null || echo 2)
# The optimization level: -O for fuzzing runs; .ci/run's short smoke run builds with -Onone,
# which compiles faster (json-reader: 2.4 minutes against 4.3 with -O, on two busy cores).
optimize=${WEBRECORD_FUZZ_OPTIMIZE:--O}

targets=${*:-json-reader population}
mkdir -p "$out"
cp "$fuzz_dir/AppNet.json" "$out/AppNet.json"

# Compile a snapshot of the library, so edits made while the compiler runs do not break it.
snapshot="$out/sources"
rm -rf "$snapshot"
mkdir -p "$snapshot"
cp -R "$root/Sources/WebRecord" "$snapshot/WebRecord"

for target in $targets; do
    case $target in
        json-reader | population) ;;
        *) echo "build.sh: unknown target '$target' (json-reader, population)" >&2; exit 2 ;;
    esac
done

library_sources=$(find "$snapshot/WebRecord" -name '*.swift' | LC_ALL=C sort)
echo "building $out/webrecord-fuzz"
# shellcheck disable=SC2086 # the source list is meant to split
"$swiftc" \
    -sanitize="$sanitize" -parse-as-library -swift-version 6 "$optimize" -g -j "$jobs" \
    -module-name WebRecord -package-name WebRecord \
    -I "$root/Sources/WebRecordSQLite" -lsqlite3 \
    $library_sources "$fuzz_dir/FuzzMain.swift" "$fuzz_dir/JSONReaderFuzz.swift" "$fuzz_dir/PopulationFuzz.swift" \
    -o "$out/webrecord-fuzz"
for target in json-reader population; do
    rm -f "$out/$target"
    ln -s webrecord-fuzz "$out/$target"
    echo "linked $out/$target"
done
