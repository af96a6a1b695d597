import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether the tests run under a sanitizer, and the time bounds that must hold there.
///
/// The thread sanitizer slows instrumented code (the test runner and every built executable it
/// starts) by five to fifteen times, and Scripts/test-thread-sanitizer runs the suite at the lowest
/// priority beside other work. A test that asserts an upper bound on elapsed time, or gives up
/// after one, stretches that bound with ``bound(_:)``; a bound that cannot be stretched without
/// losing what the test shows disables its test with ``timeBoundsHold`` and says why.
public enum Sanitizer {
    /// Whether this process runs under a sanitizer: `swift test --sanitize=thread` (or
    /// `address`), told by the sanitizer's runtime being loaded, or `WEBRECORD_SANITIZER` set
    /// to a sanitizer's name, as Scripts/test-thread-sanitizer sets it.
    public static let isActive: Bool = {
        let names = ["__tsan_init", "__asan_init"]
        if names.contains(where: { dlsym(UnsafeMutableRawPointer(bitPattern: 0), $0) != nil }) { return true }
        let named = ProcessInfo.processInfo.environment["WEBRECORD_SANITIZER"] ?? ""
        return !named.isEmpty && named != "none"
    }()

    /// How many times longer a time bound is under a sanitizer.
    public static let slowdown: Double = 10

    /// `seconds`, or ``slowdown`` times as long under a sanitizer.
    public static func bound(_ seconds: TimeInterval) -> TimeInterval {
        isActive ? seconds * slowdown : seconds
    }

    /// Whether the time bounds of ordinary builds hold: false under a sanitizer.
    public static var timeBoundsHold: Bool { !isActive }
}
