import Foundation

/// The process's memory figures, from `/proc/self/status` (Linux).
enum ProcessMemory {
    /// The peak resident set size (`VmHWM`) in bytes, or nil where `/proc` is not available.
    static func peakResidentBytes() -> Int? {
        field("VmHWM")
    }

    /// The current resident set size (`VmRSS`) in bytes, or nil where `/proc` is not available.
    static func residentBytes() -> Int? {
        field("VmRSS")
    }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.dropFirst(name.count + 1).filter(\.isNumber)
            return Int(number).map { $0 * 1024 }
        }
        return nil
    }
}

/// Runs this executable again as a child process for one phase, so each phase's peak memory
/// is its own.
enum ChildProcess {
    /// The path of the running executable.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Runs the executable with `arguments` and returns the fields of the `RESULT` line it prints.
    ///
    /// - Throws: ``BenchmarkError`` when the child cannot start, fails, or prints no result.
    static func run(_ arguments: [String]) throws -> [String: String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw BenchmarkError("cannot start \(executablePath): \(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw BenchmarkError(
                "phase \(arguments.joined(separator: " ")) failed with status \(process.terminationStatus)\n\(text)")
        }
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") }) else {
            throw BenchmarkError("phase \(arguments.joined(separator: " ")) printed no result\n\(text)")
        }
        return PhaseResult.fields(in: String(line))
    }
}

/// A benchmark failure, with a one-line reason.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
