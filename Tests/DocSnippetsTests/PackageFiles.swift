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
    static func run(_ name: String, _ arguments: [String] = [], in directory: URL? = nil) async throws
        -> ChildProcess.Result
    {
        // The test bundle sits in the products directory with the executables (on Linux, the
        // bundle of the test executable itself).
        let executable = try BuiltExecutables.executable(name, besides: Bundle(for: BundleMarker.self))
        return try await ChildProcess.run(executable, arguments, in: directory)
    }

    /// Runs the generator, `python3 Tests/DocSnippetsTests/generate.py`, with `arguments`.
    static func runGenerator(_ arguments: [String]) async throws -> ChildProcess.Result {
        let script = root.appendingPathComponent("Tests/DocSnippetsTests/generate.py").path
        return try await ChildProcess.run(ChildProcess.onPath("python3"), [script] + arguments, in: root)
    }
}

/// A class of the test bundle, to find the bundle.
private final class BundleMarker {}
