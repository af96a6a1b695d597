import Foundation
import WebRecord

/// WebRecord's command line against the hand-written Python reference
/// (`Scripts/reference_import.py`), side by side in one run: each is timed as a whole process,
/// from start to exit, by the benchmark around it.
///
/// Every round runs four processes on the same response: the reference's first import into an
/// empty store and its re-import into that store, then `webrecord populate`'s first import
/// and unchanged re-import (`webrecord` from the benchmark's own build directory). The rounds
/// alternate which of the two goes first, so neither is always measured on a warmer or a
/// busier machine, and the figures are the medians of the rounds.
struct ReferenceComparison {
    /// The response file.
    let dataPath: String
    /// The schema file `webrecord populate` reads.
    let schemaPath: String
    /// `Scripts/reference_import.py`.
    let scriptPath: String
    let rounds: Int

    /// The four runs compared, as `RESULT` field prefixes.
    enum Subject: String, CaseIterable {
        case pythonFirst = "python.first"
        case pythonReimport = "python.reimport"
        case webRecordFirst = "webrecord.first"
        case webRecordReimport = "webrecord.reimport"
    }

    func run() throws -> PhaseResult {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("webrecord-bench-versus-python-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        let python = TimedCommand(executable: try Self.pythonInterpreter(scratch: scratch), scratch: scratch)
        let webrecord = TimedCommand(executable: try Self.webRecordExecutable(), scratch: scratch)
        let pythonStore = scratch.appendingPathComponent("python.sqlite").path
        let webRecordStore = scratch.appendingPathComponent("webrecord.sqlite").path
        let populate = [
            "populate", "--schema", schemaPath, "--db", webRecordStore, "--entity", "Post", "--json", dataPath,
        ]

        var runs: [Subject: [TimedCommand.Run]] = [:]
        var ownSeconds: [Subject: [Double]] = [:]
        var pythonRecords = 0
        var webRecordRecords = 0
        var webRecordReimportChanges = ""
        func runPython() throws {
            Self.removeStore(pythonStore)
            for subject in [Subject.pythonFirst, .pythonReimport] {
                let run = try python.run([scriptPath, dataPath, pythonStore])
                let fields = Self.resultFields(run.output)
                runs[subject, default: []].append(run)
                ownSeconds[subject, default: []].append(Double(fields["seconds"] ?? "") ?? 0)
                pythonRecords = Int(fields["records"] ?? "") ?? 0
            }
        }
        func runWebRecord() throws {
            Self.removeStore(webRecordStore)
            for subject in [Subject.webRecordFirst, .webRecordReimport] {
                let run = try webrecord.run(populate)
                runs[subject, default: []].append(run)
                let summary = try JSONReader().read(Data(run.output.utf8))
                func count(_ key: String) -> Int { Int(summary[key]?.int64Value ?? 0) }
                if subject == .webRecordFirst {
                    webRecordRecords = count("inserted")
                } else {
                    webRecordReimportChanges =
                        "\(count("inserted"))/\(count("updated"))/\(count("unchanged"))"
                }
            }
        }
        for round in 0..<rounds {
            if round % 2 == 0 {
                try runPython()
                try runWebRecord()
            } else {
                try runWebRecord()
                try runPython()
            }
        }

        var result = PhaseResult()
        for subject in Subject.allCases {
            let subjectRuns = runs[subject] ?? []
            let name = subject.rawValue
            result[name] = PhaseRunner.format(PhaseRunner.median(subjectRuns.map(\.wall)))
            result[name + ".best"] = PhaseRunner.format(subjectRuns.map(\.wall).min() ?? 0)
            result[name + ".cpu"] = PhaseRunner.format(PhaseRunner.median(subjectRuns.map(\.cpu)))
            result[name + ".peak"] = String(Int(PhaseRunner.median(subjectRuns.map { Double($0.peakBytes) })))
            if let own = ownSeconds[subject] {
                result[name + ".own"] = PhaseRunner.format(PhaseRunner.median(own))
            }
        }
        result["rounds"] = String(rounds)
        result["python.records"] = String(pythonRecords)
        result["webrecord.records"] = String(webRecordRecords)
        // inserted/updated/unchanged of WebRecord's last re-import: all unchanged, as the
        // response is the same.
        result["webrecord.reimport.changes"] = webRecordReimportChanges
        result["python.executable"] = python.executable
        return result
    }

    /// Why the comparison cannot run here (no `python3` on `PATH`, no reference script, no
    /// `webrecord` beside the benchmark), or nil when it can.
    static func missingPrerequisite() -> String? {
        if TimedCommand.onPath("python3") == nil { return "python3 is not on PATH" }
        if BenchmarkOptions.packageFile(BenchmarkOptions.referenceScript) == nil {
            return "\(BenchmarkOptions.referenceScript) not found; run from the package"
        }
        do {
            _ = try webRecordExecutable()
        } catch {
            return "\(error)"
        }
        return nil
    }

    /// The fields of the `RESULT` line in `output`.
    static func resultFields(_ output: String) -> [String: String] {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") }) else { return [:] }
        return PhaseResult.fields(in: String(line))
    }

    /// Removes a store file and its write-ahead log, so the next import starts empty.
    static func removeStore(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    /// The interpreter `python3` on `PATH` runs, by its real path (`sys.executable`): a version
    /// manager's `python3` is often a shell script that starts the interpreter, and its start-up
    /// is not the reference's.
    static func pythonInterpreter(scratch: URL) throws -> String {
        guard let python3 = TimedCommand.onPath("python3") else {
            throw BenchmarkError("python3 is not on PATH; the Python reference needs it")
        }
        let run = try TimedCommand(executable: python3, scratch: scratch).run([
            "-c", "import sys; print(sys.executable)",
        ])
        let path = run.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return path.isEmpty ? python3 : path
    }

    /// `webrecord` in the build directory that holds this benchmark.
    static func webRecordExecutable() throws -> String {
        let directory = URL(fileURLWithPath: ChildProcess.executablePath).deletingLastPathComponent()
        let path = directory.appendingPathComponent("webrecord").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchmarkError(
                "no webrecord executable next to webrecord-bench (\(path)); build it too: "
                    + "swift build -c release --product webrecord")
        }
        return path
    }
}
