import Foundation
import WebRecord

/// WebRecord's command line against its peers, side by side in one run on the same response:
/// the hand-written Python reference (`Scripts/reference_import.py`), sqlite-utils'
/// `upsert_all` and dlt's merge into SQLite (`Scripts/peers/`), and the hand-written Swift
/// importer (`peer-handwritten-swift`, built beside the benchmark). Each is timed as a whole
/// process, from start to exit, by the benchmark around it, as ``ReferenceComparison`` does.
///
/// Every round runs each peer's first import into an empty store and its re-import of the same
/// response into that store, then the next peer's; each round starts one peer further on, so no
/// peer is always measured first or last. The figures are the medians of the rounds, and each
/// peer's median as a ratio to `webrecord populate`'s. A peer that cannot run here (its Python
/// module is not installed, the Swift importer was not built) is reported as not measured, with
/// the reason, and the others still run.
struct PeerComparison {
    /// The response file.
    let dataPath: String
    /// The schema file `webrecord populate` reads.
    let schemaPath: String
    let rounds: Int

    /// How a peer is started.
    enum Command {
        /// A Python script of the package, which needs `module` (nil: only the standard library).
        case python(script: String, module: String?, distribution: String?, install: String)
        /// An executable target built beside the benchmark.
        case builtExecutable(name: String)
        /// `webrecord populate`.
        case webRecord
    }

    /// One peer: its `RESULT` field prefix, its title in the table, and how it is started.
    struct Peer {
        let name: String
        let title: String
        let command: Command
    }

    static let peers = [
        Peer(
            name: "python", title: "hand-written Python reference",
            command: .python(script: BenchmarkOptions.referenceScript, module: nil, distribution: nil, install: "")),
        Peer(
            name: "sqliteutils", title: "sqlite-utils upsert_all",
            command: .python(
                script: "Scripts/peers/sqlite_utils_import.py", module: "sqlite_utils", distribution: "sqlite-utils",
                install: "pip install sqlite-utils")),
        Peer(
            name: "dlt", title: "dlt, merge on primary key",
            command: .python(
                script: "Scripts/peers/dlt_import.py", module: "dlt, sqlalchemy", distribution: "dlt",
                install: "pip install \"dlt[sqlalchemy]==1.31.*\"")),
        Peer(
            name: "swift", title: "hand-written Swift (JSONSerialization)",
            command: .builtExecutable(name: "peer-handwritten-swift")),
        Peer(name: "webrecord", title: "webrecord populate", command: .webRecord),
    ]

    /// A peer ready to run: the program and the arguments for a store.
    private struct Runnable {
        let peer: Peer
        let command: TimedCommand
        let version: String
        let arguments: (_ store: String) -> [String]
    }

    /// The two runs of each round.
    enum Run: String, CaseIterable {
        case first
        case reimport
    }

    func run() throws -> PhaseResult {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("webrecord-bench-peers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let loadBefore = Benchmark.loadAverage()

        var runnables: [Runnable] = []
        var notMeasured: [(Peer, String)] = []
        for peer in Self.peers {
            do {
                runnables.append(try runnable(peer, scratch: scratch))
            } catch {
                // WebRecord is what the others are compared with: without it there is no phase.
                if case .webRecord = peer.command { throw error }
                notMeasured.append((peer, "\(error)".trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }

        var runs: [String: [Run: [TimedCommand.Run]]] = [:]
        var ownSeconds: [String: [Run: [Double]]] = [:]
        var records: [String: String] = [:]
        var webRecordReimportChanges = ""
        var failed: Set<String> = []
        for round in 0..<rounds {
            let start = runnables.isEmpty ? 0 : round % runnables.count
            for runnable in runnables[start...] + runnables[..<start] where !failed.contains(runnable.peer.name) {
                let name = runnable.peer.name
                let directory = scratch.appendingPathComponent(name)
                try? FileManager.default.removeItem(at: directory)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let store = directory.appendingPathComponent("store.sqlite").path
                do {
                    for kind in Run.allCases {
                        let run = try runnable.command.run(runnable.arguments(store))
                        runs[name, default: [:]][kind, default: []].append(run)
                        if case .webRecord = runnable.peer.command {
                            let summary = try JSONReader().read(Data(run.output.utf8))
                            func count(_ key: String) -> Int { Int(summary[key]?.int64Value ?? 0) }
                            if kind == .first {
                                records[name] = String(count("inserted"))
                            } else {
                                webRecordReimportChanges =
                                    "\(count("inserted"))/\(count("updated"))/\(count("unchanged"))"
                            }
                        } else {
                            let fields = ReferenceComparison.resultFields(run.output)
                            ownSeconds[name, default: [:]][kind, default: []].append(
                                Double(fields["seconds"] ?? "") ?? 0)
                            records[name] = fields["records"] ?? "?"
                        }
                    }
                } catch {
                    failed.insert(name)
                    notMeasured.append(
                        (runnable.peer, "failed: \(error)".trimmingCharacters(in: .whitespacesAndNewlines)))
                }
            }
        }
        try? FileManager.default.removeItem(at: scratch)
        let loadAfter = Benchmark.loadAverage()

        var result = PhaseResult()
        func median(_ name: String, _ kind: Run, _ value: (TimedCommand.Run) -> Double) -> Double {
            PhaseRunner.median((runs[name]?[kind] ?? []).map(value))
        }
        let measured = runnables.filter { !failed.contains($0.peer.name) }
        for runnable in measured {
            let name = runnable.peer.name
            for kind in Run.allCases {
                let field = "\(name).\(kind.rawValue)"
                let wall = median(name, kind, \.wall)
                let cpu = median(name, kind, \.cpu)
                result[field] = PhaseRunner.format(wall)
                result[field + ".best"] = PhaseRunner.format((runs[name]?[kind] ?? []).map(\.wall).min() ?? 0)
                result[field + ".cpu"] = PhaseRunner.format(cpu)
                result[field + ".peak"] = String(Int(median(name, kind) { Double($0.peakBytes) }))
                if let own = ownSeconds[name]?[kind] {
                    result[field + ".own"] = PhaseRunner.format(PhaseRunner.median(own))
                }
                let webRecordWall = median("webrecord", kind, \.wall)
                let webRecordCPU = median("webrecord", kind, \.cpu)
                if webRecordWall > 0, webRecordCPU > 0 {
                    result[field + ".ratio"] = String(format: "%.2f", wall / webRecordWall)
                    result[field + ".ratio.cpu"] = String(format: "%.2f", cpu / webRecordCPU)
                }
            }
            result[name + ".records"] = records[name] ?? "?"
            if !runnable.version.isEmpty {
                result[name + ".version"] = runnable.version.replacingOccurrences(of: " ", with: "_")
            }
        }
        for (peer, _) in notMeasured { result[peer.name + ".measured"] = "no" }
        result["rounds"] = String(rounds)
        // inserted/updated/unchanged of WebRecord's last re-import: all unchanged, as the response
        // is the same.
        result["webrecord.reimport.changes"] = webRecordReimportChanges
        result["load.before"] = loadBefore
        result["load.after"] = loadAfter

        print(
            table(
                measured, result: result, notMeasured: notMeasured, loadBefore: loadBefore, loadAfter: loadAfter))
        return result
    }

    // MARK: - The peers

    /// The peer's program, or why it cannot run here.
    private func runnable(_ peer: Peer, scratch: URL) throws -> Runnable {
        switch peer.command {
        case .python(let script, let module, let distribution, let install):
            guard let scriptPath = BenchmarkOptions.packageFile(script) else {
                throw BenchmarkError("\(script) not found; run from the package")
            }
            let python = TimedCommand(
                executable: try ReferenceComparison.pythonInterpreter(scratch: scratch), scratch: scratch)
            // The module's version (the distribution's, as pip shows it), or, for the reference,
            // which needs only the standard library, Python's and its SQLite library's.
            let version =
                distribution.map { "import importlib.metadata; print(importlib.metadata.version('\($0)'))" }
                ?? "import sys, sqlite3; print('Python %d.%d.%d' % sys.version_info[:3] + ', SQLite ' + sqlite3.sqlite_version)"
            let probe: TimedCommand.Run
            do {
                probe = try python.run(["-c", "import \(module ?? "json, sqlite3")\n\(version)"])
            } catch {
                throw BenchmarkError("python3 cannot import \(module ?? "sqlite3"): not installed (\(install))")
            }
            let versionText = probe.output.trimmingCharacters(in: .whitespacesAndNewlines)
            return Runnable(peer: peer, command: python, version: versionText) { [dataPath] store in
                [scriptPath, dataPath, store]
            }
        case .builtExecutable(let name):
            let path = URL(fileURLWithPath: ChildProcess.executablePath).deletingLastPathComponent()
                .appendingPathComponent(name).path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw BenchmarkError(
                    "not built beside webrecord-bench (\(path)); build it: swift build -c release --product \(name)")
            }
            return Runnable(peer: peer, command: TimedCommand(executable: path, scratch: scratch), version: "") {
                [dataPath] store in [dataPath, store]
            }
        case .webRecord:
            let path = try ReferenceComparison.webRecordExecutable()
            return Runnable(peer: peer, command: TimedCommand(executable: path, scratch: scratch), version: "") {
                [dataPath, schemaPath] store in
                ["populate", "--schema", schemaPath, "--db", store, "--entity", "Post", "--json", dataPath]
            }
        }
    }

    // MARK: - The table

    private func table(
        _ measured: [Runnable], result: PhaseResult, notMeasured: [(Peer, String)], loadBefore: String,
        loadAfter: String
    ) -> String {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: dataPath)[.size] as? Int) ?? 0
        var lines = [
            "WebRecord's peers on \(URL(fileURLWithPath: dataPath).lastPathComponent) (\(Report.megabytes(bytes)) MB): "
                + "whole processes, start to exit; median of \(rounds) interleaved round(s), best in brackets; "
                + "x webrecord = the median wall (CPU) time over webrecord populate's, first import to first import, "
                + "re-import to re-import",
            "\(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(loadBefore) before and \(loadAfter) after",
            "",
        ]
        let header = ["peer", "run", "wall s (best)", "CPU s", "peak MB", "x webrecord (CPU)", "own s", "records"]
        var rows: [[String]] = []
        for runnable in measured {
            let name = runnable.peer.name
            let title = runnable.peer.title + (runnable.version.isEmpty ? "" : " (\(runnable.version))")
            for kind in Run.allCases {
                let field = "\(name).\(kind.rawValue)"
                func figure(_ suffix: String) -> Double { Double(result[field + suffix] ?? "") ?? 0 }
                rows.append([
                    kind == .first ? title : "",
                    kind == .first ? "first import" : "re-import",
                    String(format: "%.3f (%.3f)", figure(""), figure(".best")),
                    String(format: "%.3f", figure(".cpu")),
                    String(format: "%.1f", figure(".peak") / 1_000_000),
                    "\(result[field + ".ratio"] ?? "-") (\(result[field + ".ratio.cpu"] ?? "-"))",
                    result[field + ".own"].map { String(format: "%.3f", Double($0) ?? 0) } ?? "-",
                    kind == .first ? result[name + ".records"] ?? "?" : "",
                ])
            }
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func format(_ row: [String]) -> String {
            row.indices.map { column in
                column < 2
                    ? row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - row[column].count) + row[column]
            }.joined(separator: "  ")
        }
        lines.append(format(header))
        lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        lines.append(contentsOf: rows.map(format))
        lines.append("")
        lines.append(
            "own s: the script's or importer's own timing, from reading the file to the commit (without start-up); "
                + "webrecord populate's re-import inserted/updated/unchanged: \(result["webrecord.reimport.changes"] ?? "?")"
        )
        for (peer, reason) in notMeasured {
            lines.append("not measured: \(peer.title): \(reason)")
        }
        return lines.joined(separator: "\n")
    }
}
