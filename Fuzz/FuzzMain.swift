// The entry point of WebRecord's one libFuzzer binary, which holds every target.
//
// Fuzz/build.sh compiles the library once, with every target, into Fuzz/.build/webrecord-fuzz,
// and links each target's name to it (Fuzz/.build/json-reader, Fuzz/.build/population). The
// binary fuzzes the target named by `$WEBRECORD_FUZZ_TARGET`, else the name it was started
// by. One build instead of one a target halves the time that .ci/run spends compiling.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Reports a broken property on standard error and aborts, which libFuzzer records as a crash.
func fuzzFailure(_ message: String) -> Never {
    var text = "fuzz property failed: " + message + "\n"
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
    abort()
}

/// Every target, by the name build.sh and run.sh give it.
let fuzzTargets: [String: @Sendable (UnsafePointer<UInt8>?, Int) -> CInt] = [
    "json-reader": jsonReaderFuzzOneInput,
    "population": populationFuzzOneInput,
]

/// The target this process fuzzes, chosen once.
let fuzzTarget: @Sendable (UnsafePointer<UInt8>?, Int) -> CInt = {
    let name =
        ProcessInfo.processInfo.environment["WEBRECORD_FUZZ_TARGET"]
        ?? URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
    guard let target = fuzzTargets[name] else {
        fuzzFailure(
            "no fuzz target named '\(name)': start the binary as "
                + fuzzTargets.keys.sorted().joined(separator: " or ") + ", or set WEBRECORD_FUZZ_TARGET")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzTarget(data, size)
}
