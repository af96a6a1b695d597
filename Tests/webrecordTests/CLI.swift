import Foundation
import TestSupport
import Testing

/// What one run of the built `webrecord` printed and how it exited.
typealias CLIResult = ChildProcess.Result

/// Runs the built `webrecord` binary the way a user does, as a child process.
enum CLI {
    /// The executable: `$WEBRECORD_EXECUTABLE`, else `webrecord` in the products directory that
    /// holds this test bundle (the build directory `swift build` and `swift test` share).
    static func executable() throws -> URL {
        try BuiltExecutables.executable("webrecord", besides: Bundle.module)
    }

    /// Runs `webrecord` with `arguments` in `directory`, feeding `input` on standard input, with
    /// `environment` added to this process's environment.
    static func run(
        _ arguments: [String], in directory: URL? = nil, input: Data? = nil,
        timeout: TimeInterval = MachineLoad.hangTimeout,
        environment: [String: String] = [:]
    ) async throws -> CLIResult {
        try await ChildProcess.run(
            try executable(), arguments, in: directory, input: input, environment: environment, timeout: timeout)
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
