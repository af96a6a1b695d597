import Foundation

/// The command line of `webrecord-bench`.
///
/// ```
/// webrecord-bench [--posts N] [--quick] [--schema PATH]
/// webrecord-bench --phase NAME --schema PATH --data FILE [--original FILE] [--posts N] [--repeat K]
/// ```
///
/// The second form is how the benchmark runs each phase in a child process of its own.
struct BenchmarkOptions {
    static let usage = "usage: webrecord-bench [--posts N] [--quick] [--schema PATH]"

    /// Posts in the main response (20,000: the workload).
    var posts = 20_000
    /// One repetition per phase instead of several (medians are then single runs).
    var quick = false
    var schemaPath: String?
    var phase: Phase?
    var dataPath: String?
    var originalPath: String?
    var repetitions: Int?
    var help = false

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        func value(for flag: String) throws -> String {
            guard let value = remaining.popFirst() else { throw BenchmarkError("\(flag) needs a value\n\(Self.usage)") }
            return value
        }
        func number(for flag: String) throws -> Int {
            let text = try value(for: flag)
            guard let number = Int(text), number > 0 else {
                throw BenchmarkError("\(flag) needs a positive number, not '\(text)'")
            }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--posts": posts = try number(for: argument)
            case "--quick": quick = true
            case "--schema": schemaPath = try value(for: argument)
            case "--phase":
                let name = try value(for: argument)
                guard let phase = Phase(rawValue: name) else {
                    throw BenchmarkError(
                        "unknown phase '\(name)'; phases: \(Phase.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                self.phase = phase
            case "--data": dataPath = try value(for: argument)
            case "--original": originalPath = try value(for: argument)
            case "--repeat": repetitions = try number(for: argument)
            case "-h", "--help": help = true
            default: throw BenchmarkError("unknown argument '\(argument)'\n\(Self.usage)")
            }
        }
    }

    /// `Schemas/AppNet.json` of the package: given, or found above the current directory, or
    /// next to this source file.
    func resolvedSchemaPath() throws -> String {
        if let schemaPath { return schemaPath }
        let relative = "Schemas/AppNet.json"
        guard let path = Self.packageFile(relative) else {
            throw BenchmarkError("cannot find \(relative); run from the package or pass --schema PATH")
        }
        return path
    }

    /// The hand-written Python reference the `versus-python` phase runs.
    static let referenceScript = "Scripts/reference_import.py"

    /// A file of the package, by its path inside it: found above the current directory, or
    /// next to this source file; nil when it is in neither place.
    static func packageFile(_ relative: String) -> String? {
        var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        while true {
            let candidate = directory.appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { break }
            directory = parent
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidate = packageRoot.appendingPathComponent(relative).path
        return FileManager.default.fileExists(atPath: candidate) ? candidate : nil
    }
}
