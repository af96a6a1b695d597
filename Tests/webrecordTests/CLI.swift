import Foundation
import Synchronization
import Testing

/// What one run of the built `webrecord` printed and how it exited.
struct CLIResult: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutData: Data

    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

    var description: String {
        "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }
}

/// Runs the built `webrecord` binary the way a user does, with `Process`.
enum CLI {
    struct MissingBinary: Error, CustomStringConvertible {
        var searched: [String]
        var description: String {
            "the webrecord executable was not built; looked in: " + searched.joined(separator: ", ")
                + ". Build it first (swift build) or set WEBRECORD_EXECUTABLE."
        }
    }

    struct Timeout: Error, CustomStringConvertible {
        var arguments: [String]
        var description: String { "webrecord \(arguments.joined(separator: " ")) did not finish in time" }
    }

    /// The executable: `$WEBRECORD_EXECUTABLE`, else `webrecord` in the products directory that
    /// holds this test bundle (the build directory `swift build` and `swift test` share).
    static func executable() throws -> URL {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["WEBRECORD_EXECUTABLE"], !path.isEmpty {
            candidates.append(URL(fileURLWithPath: path))
        }
        // The resource bundle sits in the products directory, next to the executable.
        let resources = Bundle.module.bundleURL.deletingLastPathComponent()
        candidates.append(resources.appendingPathComponent("webrecord"))
        let main = Bundle.main.bundleURL
        candidates.append(main.appendingPathComponent("webrecord"))
        candidates.append(main.deletingLastPathComponent().appendingPathComponent("webrecord"))
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent("webrecord"))
        }
        for candidate in candidates {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
        }
        throw MissingBinary(searched: candidates.map(\.path))
    }

    /// Runs `webrecord` with `arguments` in `directory`, feeding `input` on standard input.
    ///
    /// Output goes to files rather than pipes, so a large output never blocks the child.
    static func run(
        _ arguments: [String], in directory: URL? = nil, input: Data? = nil, timeout: TimeInterval = 120
    ) async throws -> CLIResult {
        let executable = try executable()
        let scratch = try TemporaryDirectory()
        let outURL = scratch.url.appendingPathComponent("stdout")
        let errURL = scratch.url.appendingPathComponent("stderr")
        let inURL = scratch.url.appendingPathComponent("stdin")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        try (input ?? Data()).write(to: inURL)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let stdin = try FileHandle(forReadingFrom: inURL)
        defer {
            try? out.close()
            try? err.close()
            try? stdin.close()
        }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? scratch.url
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            let finished = Finished()
            process.terminationHandler = { process in
                if finished.claim() { continuation.resume(returning: process.terminationStatus) }
            }
            do {
                try process.run()
            } catch {
                if finished.claim() { continuation.resume(throwing: error) }
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if finished.claim() {
                    process.terminate()
                    continuation.resume(throwing: Timeout(arguments: arguments))
                }
            }
        }
        let stdoutData = (try? Data(contentsOf: outURL)) ?? Data()
        let stderrData = (try? Data(contentsOf: errURL)) ?? Data()
        return CLIResult(
            status: status, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self), stdoutData: stdoutData)
    }

    /// A fixture file copied into the test bundle from `Tests/webrecordTests/Fixtures/`.
    static func fixture(_ name: String) throws -> URL {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
            throw FixtureMissing(name: name)
        }
        return url
    }

    struct FixtureMissing: Error, CustomStringConvertible {
        var name: String
        var description: String { "no fixture named \(name)" }
    }
}

/// A one-shot flag: the first caller to claim it wins.
private final class Finished: Sendable {
    private let state = Mutex(false)

    func claim() -> Bool {
        state.withLock { done in
            if done { return false }
            done = true
            return true
        }
    }
}

/// A fresh temporary directory, removed when released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("webrecord-cli-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A path inside the directory.
    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Writes `text` to a file in the directory and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let path = path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
