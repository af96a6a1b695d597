import Foundation

/// `--phase postgres`: WebRecord's PostgreSQL store, measured in one run on a private server
/// the phase starts with PostgreSQL's default settings and stops at the end
/// (``BenchmarkPostgreSQL``):
///
/// 1. the response (`--data`) populated into PostgreSQL and into SQLite by `webrecord
///    populate`, and into PostgreSQL by dlt, each a whole process (``PostgreSQLComparison``);
/// 2. four responses of `--posts` posts populated into one database by four `webrecord
///    populate` processes, one after another and all at once (``PostgreSQLWorkers``).
///
/// It prints both parts' tables, then its `RESULT` line. Not part of the default run: it needs
/// PostgreSQL installed, and dlt takes tens of seconds a round.
struct PostgreSQLPhase {
    /// The response file.
    let dataPath: String
    /// The schema file `webrecord populate` reads.
    let schemaPath: String
    /// Posts in each of the workers' responses.
    let postCount: Int
    let rounds: Int

    func run() throws -> PhaseResult {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("webrecord-bench-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let loadBefore = Benchmark.loadAverage()
        let server = try BenchmarkPostgreSQL.start()
        defer { server.stop() }
        let settings = try server.describeSettings()

        let comparison = try PostgreSQLComparison(
            dataPath: dataPath, schemaPath: schemaPath, rounds: rounds, server: server, scratch: scratch
        ).run()
        let workers = try PostgreSQLWorkers(
            schemaPath: schemaPath, postCount: postCount, rounds: rounds, server: server, scratch: scratch
        ).run()
        let loadAfter = Benchmark.loadAverage()

        var lines = [
            "WebRecord and PostgreSQL: a private server, \(settings) (its defaults, untuned), on a Unix socket",
            "\(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(loadBefore) before and \(loadAfter) after",
            "",
        ]
        lines.append(contentsOf: comparison.lines)
        lines.append("")
        lines.append(contentsOf: workers.lines)
        print(lines.joined(separator: "\n"))

        var result = comparison.result
        result.fields.merge(workers.result.fields) { first, _ in first }
        result["server"] = settings.replacingOccurrences(of: " ", with: "_")
        result["load.before"] = loadBefore
        result["load.after"] = loadAfter
        return result
    }

    /// A table as lines: the first column left-aligned, the others right-aligned.
    static func table(header: [String], rows: [[String]]) -> [String] {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func format(_ row: [String]) -> String {
            row.indices.map { column in
                column == 0
                    ? row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - row[column].count) + row[column]
            }.joined(separator: "  ")
        }
        return [format(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
            + rows.map(format)
    }
}
