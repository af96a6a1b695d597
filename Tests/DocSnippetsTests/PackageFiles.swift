import Foundation
import TestSupport

/// The package's source tree and the executables built from it, as the documentation tests
/// see them.
enum PackageFiles {
    /// The package root: this file is `Tests/DocSnippetsTests/PackageFiles.swift`.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The text of a file, by its path from the package root.
    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Runs the built executable `name` with `arguments` in `directory` (a fresh one by default).
    static func run(_ name: String, _ arguments: [String] = [], in directory: URL? = nil) async throws -> Run {
        // The test bundle sits in the products directory with the executables (on Linux, the
        // bundle of the test executable itself).
        let executable = try BuiltExecutables.executable(name, besides: Bundle(for: BundleMarker.self))
        return Run(try await BuiltExecutables.run(executable, arguments, in: directory))
    }

    /// Runs a command found on the `PATH`, such as `python3`.
    static func runCommand(_ arguments: [String], in directory: URL? = nil) async throws -> Run {
        Run(try await BuiltExecutables.run(URL(fileURLWithPath: "/usr/bin/env"), arguments, in: directory))
    }

    /// What a child printed and how it exited.
    struct Run: CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String

        init(_ output: BuiltExecutables.Output) {
            status = output.status
            stdout = String(decoding: output.stdout, as: UTF8.self)
            stderr = String(decoding: output.stderr, as: UTF8.self)
        }

        var description: String { "status \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
    }
}

/// A class of the test bundle, to find the bundle.
private final class BundleMarker {}
