import Foundation
import TestSupport
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
    /// The executable: `$WEBRECORD_EXECUTABLE`, else `webrecord` in the products directory that
    /// holds this test bundle (the build directory `swift build` and `swift test` share).
    static func executable() throws -> URL {
        try BuiltExecutables.executable("webrecord", besides: Bundle.module)
    }

    /// Runs `webrecord` with `arguments` in `directory`, feeding `input` on standard input, with
    /// `environment` added to this process's environment.
    ///
    /// Output goes to files rather than pipes, so a large output never blocks the child.
    static func run(
        _ arguments: [String], in directory: URL? = nil, input: Data? = nil, timeout: TimeInterval = 120,
        environment: [String: String] = [:]
    ) async throws -> CLIResult {
        let output = try await BuiltExecutables.run(
            try executable(), arguments, in: directory, input: input, timeout: timeout, environment: environment)
        return CLIResult(
            status: output.status, stdout: String(decoding: output.stdout, as: UTF8.self),
            stderr: String(decoding: output.stderr, as: UTF8.self), stdoutData: output.stdout)
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
