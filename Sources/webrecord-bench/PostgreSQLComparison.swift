import Foundation
import WebRecord

/// The first part of `--phase postgres`: one response populated by three whole processes, each
/// into an empty store, timed from start to exit by the benchmark around it:
///
/// - `webrecord populate --db postgresql://...` into an empty PostgreSQL database;
/// - `webrecord populate --db FILE` into an empty SQLite file;
/// - dlt's merge on the primary key into an empty PostgreSQL database of the same server
///   (`Scripts/peers/dlt_postgres_import.py`).
///
/// Each round runs the three in turn, starting one further on each round, so none is always
/// measured first or last; the figures are the medians of the rounds. After every WebRecord run
/// into PostgreSQL, the store is checked to hold the response's posts and users, and the phase
/// fails, loudly, if it does not. Without dlt installed, dlt is reported as not measured and the
/// other two still run.
struct PostgreSQLComparison {
    /// The response file.
    let dataPath: String
    /// The schema file `webrecord populate` reads.
    let schemaPath: String
    let rounds: Int
    let server: BenchmarkPostgreSQL
    /// A directory for SQLite stores, dlt's working folders and the children's output.
    let scratch: URL

    /// What is compared, as `RESULT` field prefixes.
    enum Subject: String, CaseIterable {
        case webRecordPostgreSQL = "webrecord.postgres"
        case webRecordSQLite = "webrecord.sqlite"
        case dltPostgreSQL = "dlt.postgres"

        var title: String {
            switch self {
            case .webRecordPostgreSQL: "webrecord populate, into PostgreSQL"
            case .webRecordSQLite: "webrecord populate, into SQLite"
            case .dltPostgreSQL: "dlt, merge on primary key into PostgreSQL"
            }
        }
    }

    /// The dlt peer's script.
    static let dltScript = "Scripts/peers/dlt_postgres_import.py"
    /// How to install what the script needs.
    static let dltInstall = "pip install \"dlt[postgres]==1.31.*\""

    /// A subject's runs over the rounds.
    private struct Runs {
        var runs: [TimedCommand.Run] = []
        /// The server's CPU seconds during each run.
        var serverCPU: [Double] = []
        /// The script's own timing (dlt), from reading the file to the end of the load.
        var own: [Double] = []
        /// The records inserted (WebRecord) or held afterwards (dlt).
        var records = "?"

        mutating func add(_ run: TimedCommand.Run, serverCPU: Double, records: String) {
            runs.append(run)
            self.serverCPU.append(serverCPU)
            self.records = records
        }
    }

    func run() throws -> (result: PhaseResult, lines: [String]) {
        let expected = try Self.expectedRows(dataPath)
        let webrecord = TimedCommand(executable: try ReferenceComparison.webRecordExecutable(), scratch: scratch)
        var subjects: [Subject] = [.webRecordPostgreSQL, .webRecordSQLite]
        var dlt: (command: TimedCommand, script: String, version: String)?
        var notMeasured: String?
        do {
            dlt = try dltPeer()
            subjects.append(.dltPostgreSQL)
        } catch {
            notMeasured = "\(error)".trimmingCharacters(in: .whitespacesAndNewlines)
        }

        var measured: [Subject: Runs] = [:]
        for round in 1...rounds {
            let start = (round - 1) % subjects.count
            for subject in subjects[start...] + subjects[..<start] {
                switch subject {
                case .webRecordPostgreSQL:
                    let database = "webrecord_r\(round)"
                    try server.createEmptyDatabase(database)
                    let (run, serverCPU) = try timed {
                        try webrecord.run(populate(into: server.url(database)))
                    }
                    try server.expectRows(
                        posts: expected.posts, users: expected.users, in: database,
                        after: "webrecord populate into PostgreSQL, round \(round)")
                    measured[subject, default: Runs()].add(run, serverCPU: serverCPU, records: try Self.inserted(run))
                    try server.dropDatabase(database)
                case .webRecordSQLite:
                    let store = scratch.appendingPathComponent("webrecord-r\(round).sqlite").path
                    ReferenceComparison.removeStore(store)
                    let (run, serverCPU) = try timed { try webrecord.run(populate(into: store)) }
                    measured[subject, default: Runs()].add(run, serverCPU: serverCPU, records: try Self.inserted(run))
                    ReferenceComparison.removeStore(store)
                case .dltPostgreSQL:
                    guard let dlt else { continue }
                    let database = "dlt_r\(round)"
                    let workingFolder = scratch.appendingPathComponent("dlt-r\(round)")
                    try server.createEmptyDatabase(database)
                    let (run, serverCPU) = try timed {
                        try dlt.command.run([dlt.script, dataPath, server.url(database), workingFolder.path])
                    }
                    let fields = ReferenceComparison.resultFields(run.output)
                    measured[subject, default: Runs()].add(run, serverCPU: serverCPU, records: fields["records"] ?? "?")
                    measured[subject]?.own.append(Double(fields["seconds"] ?? "") ?? 0)
                    try server.dropDatabase(database)
                    try? FileManager.default.removeItem(at: workingFolder)
                }
            }
        }

        var result = PhaseResult()
        for subject in subjects {
            let runs = measured[subject] ?? Runs()
            let name = subject.rawValue
            result[name] = PhaseRunner.format(PhaseRunner.median(runs.runs.map(\.wall)))
            result[name + ".best"] = PhaseRunner.format(runs.runs.map(\.wall).min() ?? 0)
            result[name + ".cpu"] = PhaseRunner.format(PhaseRunner.median(runs.runs.map(\.cpu)))
            if subject != .webRecordSQLite {
                result[name + ".server.cpu"] = PhaseRunner.format(PhaseRunner.median(runs.serverCPU))
            }
            result[name + ".peak"] = String(Int(PhaseRunner.median(runs.runs.map { Double($0.peakBytes) })))
            result[name + ".records"] = runs.records
            if !runs.own.isEmpty { result[name + ".own"] = PhaseRunner.format(PhaseRunner.median(runs.own)) }
        }
        if let dlt { result["dlt.version"] = dlt.version }
        result["dlt.measured"] = dlt == nil ? "no" : "yes"
        result["posts"] = String(expected.posts)
        result["users"] = String(expected.users)
        result["rounds"] = String(rounds)
        func wall(_ subject: Subject) -> Double { Double(result[subject.rawValue] ?? "") ?? 0 }
        let postgreSQLOverSQLite = wall(.webRecordPostgreSQL) / wall(.webRecordSQLite)
        result["ratio.postgres.sqlite"] = String(format: "%.2f", postgreSQLOverSQLite)
        result["target.postgres.sqlite"] = postgreSQLOverSQLite <= Self.postgreSQLOverSQLiteTarget ? "met" : "not-met"
        if dlt != nil {
            let dltOverWebRecord = wall(.dltPostgreSQL) / wall(.webRecordPostgreSQL)
            result["ratio.dlt.postgres"] = String(format: "%.2f", dltOverWebRecord)
            result["target.dlt.postgres"] = dltOverWebRecord >= Self.dltOverWebRecordTarget ? "met" : "not-met"
        }
        return (result, lines(subjects, result: result, notMeasured: notMeasured))
    }

    /// WebRecord into PostgreSQL takes at most this many times WebRecord into SQLite: the
    /// pipeline's target (it was 2.0 when the PostgreSQL store was first measured).
    static let postgreSQLOverSQLiteTarget = 1.5
    /// dlt into PostgreSQL takes at least this many times WebRecord into PostgreSQL.
    static let dltOverWebRecordTarget = 10.0

    // MARK: - Running

    /// `webrecord populate` of the response into `store` (a file or a connection URL).
    private func populate(into store: String) -> [String] {
        ["populate", "--schema", schemaPath, "--db", store, "--entity", "Post", "--json", dataPath]
    }

    /// Runs `body` and returns its run with the server's CPU seconds during it.
    private func timed(_ body: () throws -> TimedCommand.Run) throws -> (TimedCommand.Run, Double) {
        let before = server.serverCPUSeconds()
        let run = try body()
        let after = server.serverCPUSeconds()
        return (run, before.flatMap { before in after.map { $0 - before } } ?? 0)
    }

    /// The dlt peer: python3 with dlt and psycopg2, the script, dlt's version; or why it cannot
    /// run here.
    private func dltPeer() throws -> (command: TimedCommand, script: String, version: String) {
        guard let script = BenchmarkOptions.packageFile(Self.dltScript) else {
            throw BenchmarkError("\(Self.dltScript) not found; run from the package")
        }
        let python = TimedCommand(
            executable: try ReferenceComparison.pythonInterpreter(scratch: scratch), scratch: scratch)
        let probe: TimedCommand.Run
        do {
            probe = try python.run([
                "-c", "import dlt, psycopg2, importlib.metadata; print(importlib.metadata.version('dlt'))",
            ])
        } catch {
            throw BenchmarkError("python3 cannot import dlt and psycopg2: not installed (\(Self.dltInstall))")
        }
        return (python, script, probe.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The posts of the response and its distinct users, read a batch at a time.
    ///
    /// The benchmark's own memory stays small: a child's peak memory, as `wait4` reports it,
    /// is at least the benchmark's peak when it started the child (see ``TimedCommand/Run``).
    static func expectedRows(_ dataPath: String) throws -> (posts: Int, users: Int) {
        let reader = try JSONStreamReader.file(atPath: dataPath, keyPath: "data")
        guard case .streaming = try reader.start() else {
            throw BenchmarkError("\(dataPath): no \"data\" list of posts")
        }
        var posts = 0
        var users = Set<String>()
        while let batch = try reader.nextBatch() {
            posts += batch.count
            for post in batch {
                if let user = post["user"]?["id"]?.stringValue { users.insert(user) }
            }
        }
        return (posts, users.count)
    }

    /// The records `webrecord populate --json` says it inserted.
    static func inserted(_ run: TimedCommand.Run) throws -> String {
        let summary = try JSONReader().read(Data(run.output.utf8))
        return summary["inserted"]?.int64Value.map { String($0) } ?? "?"
    }

    // MARK: - The table

    private func lines(_ subjects: [Subject], result: PhaseResult, notMeasured: String?) -> [String] {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: dataPath)[.size] as? Int) ?? 0
        var lines = [
            "Into PostgreSQL, \(URL(fileURLWithPath: dataPath).lastPathComponent) (\(Report.megabytes(bytes)) MB, "
                + "\(result["posts"] ?? "?") posts, \(result["users"] ?? "?") users): whole processes, start to exit, "
                + "each a first import into an empty store; median of \(rounds) interleaved round(s), best in brackets",
            "",
        ]
        let header = ["system", "wall s (best)", "CPU s", "server CPU s", "peak MB", "own s", "records"]
        var rows: [[String]] = []
        for subject in subjects {
            let name = subject.rawValue
            func figure(_ suffix: String) -> Double { Double(result[name + suffix] ?? "") ?? 0 }
            let version = subject == .dltPostgreSQL ? result["dlt.version"].map { " \($0)" } ?? "" : ""
            rows.append([
                subject.title + version,
                String(format: "%.3f (%.3f)", figure(""), figure(".best")),
                String(format: "%.3f", figure(".cpu")),
                subject == .webRecordSQLite ? "-" : String(format: "%.3f", figure(".server.cpu")),
                String(format: "%.1f", figure(".peak") / 1_000_000),
                result[name + ".own"].map { String(format: "%.3f", Double($0) ?? 0) } ?? "-",
                result[name + ".records"] ?? "?",
            ])
        }
        lines.append(contentsOf: PostgreSQLPhase.table(header: header, rows: rows))
        lines.append("")
        lines.append(
            "WebRecord into PostgreSQL / into SQLite: \(result["ratio.postgres.sqlite"] ?? "?") "
                + "(target <= \(Self.postgreSQLOverSQLiteTarget): \(result["target.postgres.sqlite"] ?? "?"))")
        if let ratio = result["ratio.dlt.postgres"] {
            lines.append(
                "dlt into PostgreSQL / WebRecord into PostgreSQL: \(ratio) "
                    + "(target >= \(Self.dltOverWebRecordTarget): \(result["target.dlt.postgres"] ?? "?"))")
        }
        lines.append(
            "checked after every WebRecord run into PostgreSQL: \(result["posts"] ?? "?") posts and "
                + "\(result["users"] ?? "?") users stored")
        lines.append(
            "server CPU s: the PostgreSQL server's processes during the run (/proc); own s: the script's own timing, "
                + "from reading the file to the end of the load")
        if let notMeasured { lines.append("not measured: dlt into PostgreSQL: \(notMeasured)") }
        return lines
    }
}
