import Foundation
import WebRecord

/// One benchmark phase, run in a child process of its own (`webrecord-bench --phase NAME ...`)
/// so that the peak memory it reports is that phase's alone.
enum Phase: String, CaseIterable {
    /// `JSONReader` on the response bytes, nothing else.
    case parse
    /// Parse and populate into an empty store, end to end.
    case firstImport = "first-import"
    /// Populate a store, then time parsing and populating the same response again.
    case reimportUnchanged = "reimport-unchanged"
    /// Populate a store, then time parsing and populating the response with a tenth changed.
    case reimportChanged = "reimport-changed"
    /// Request every page of the stream (`--data DIR` of `page-N.json`) through a paged request.
    case pagedImport = "paged-import"
    /// Prepared INSERTs of the same rows, through `Connection`, no JSON.
    case baseline
    /// Count the SQL statements of a first import and a re-import.
    case queries
    /// Observe every post by date, then time how long after each commit that changes 10 posts
    /// the observation's delivery arrives.
    case observe
    /// Time the hand-written Python reference (`Scripts/reference_import.py`) and
    /// `webrecord populate`, each a whole process, on the same response: first import and
    /// unchanged re-import, `--repeat` interleaved rounds (``ReferenceComparison``).
    case versusPython = "versus-python"
    /// Time WebRecord's peers (the Python reference, sqlite-utils, dlt, the hand-written Swift
    /// importer) and `webrecord populate`, each a whole process, on the same response: first
    /// import and re-import, `--repeat` interleaved rounds (``PeerComparison``). Not part of the
    /// default run: dlt alone takes minutes.
    case peers
    /// Write the generated response for `--posts N` to `--data FILE`, and its 10%-changed
    /// variant next to it (`FILE.changed.json`): the input for profiling a phase under
    /// `valgrind --tool=callgrind`.
    case generate
    /// `webrecord populate` on one large file (`--data FILE`, about 1 GB: generate it with
    /// `--posts 750000`), timed as a whole process, its peak memory against the streaming
    /// target (``LargeStream``). Not part of the default run: it takes minutes.
    case streamLarge = "stream-large"
    /// WebRecord's PostgreSQL store on a private server with its default settings
    /// (``PostgreSQLPhase``): `webrecord populate` into PostgreSQL and into SQLite and dlt into
    /// PostgreSQL, each a whole process, `--repeat` interleaved rounds; then four responses of
    /// `--posts` posts populated into one database by four processes, one after another and all
    /// at once. Not part of the default run: it needs PostgreSQL, and dlt takes tens of seconds.
    case postgres
}

/// What a phase prints on its last line: `RESULT key=value ...`.
struct PhaseResult {
    var fields: [String: String] = [:]

    subscript(key: String) -> String? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    /// The `RESULT` line.
    var line: String {
        "RESULT " + fields.keys.sorted().map { "\($0)=\(fields[$0] ?? "")" }.joined(separator: " ")
    }

    /// The fields of a `RESULT` line.
    static func fields(in line: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }
}

/// Runs one phase in this process and prints its result.
struct PhaseRunner {
    let phase: Phase
    let schema: Schema
    /// The schema's file, for the command-line runs of `webrecord`.
    let schemaPath: String
    /// The response file to populate (or, for the baseline, whose rows to insert).
    let dataPath: String
    /// The response populated before the timed one (re-import phases).
    let originalPath: String?
    /// The number of posts in the response (the baseline regenerates its rows from it).
    let postCount: Int
    let repetitions: Int

    func run() async throws -> PhaseResult {
        var result: PhaseResult
        switch phase {
        case .parse: result = try parse()
        case .firstImport: result = try importTimes(original: nil)
        case .pagedImport: result = try await pagedImport()
        case .reimportUnchanged, .reimportChanged:
            result = try importTimes(original: originalPath ?? dataPath)
        case .baseline: result = try baseline()
        case .queries: result = try queries()
        case .observe: result = try await observe()
        case .versusPython:
            guard let script = BenchmarkOptions.packageFile(BenchmarkOptions.referenceScript) else {
                throw BenchmarkError("cannot find \(BenchmarkOptions.referenceScript); run from the package")
            }
            result = try ReferenceComparison(
                dataPath: dataPath, schemaPath: schemaPath, scriptPath: script, rounds: repetitions
            ).run()
        case .peers:
            result = try PeerComparison(dataPath: dataPath, schemaPath: schemaPath, rounds: repetitions).run()
        case .generate: result = try generate()
        case .streamLarge: result = try LargeStream(dataPath: dataPath, schemaPath: schemaPath).run()
        case .postgres:
            result = try PostgreSQLPhase(
                dataPath: dataPath, schemaPath: schemaPath, postCount: postCount, rounds: repetitions
            ).run()
        }
        result["peak"] = String(ProcessMemory.peakResidentBytes() ?? 0)
        return result
    }

    // MARK: - Phases

    /// Times the reader alone; freeing the value it made is timed apart (`free`).
    private func parse() throws -> PhaseResult {
        let data = try Data(contentsOf: URL(fileURLWithPath: dataPath))
        var times: [Timing] = []
        var frees: [Timing] = []
        for _ in 0..<repetitions {
            let start = Timing.now()
            let value = try JSONReader().read(data)
            let parsed = Timing.now()
            _ = consume value
            frees.append(Timing.now() - parsed)
            times.append(parsed - start)
        }
        var result = PhaseResult()
        Self.record(times, as: "seconds", in: &result)
        Self.record(frees, as: "free", in: &result)
        result["bytes"] = String(data.count)
        return result
    }

    /// Times parse + populate of `dataPath` into a fresh store, after populating `original`
    /// (untimed) when given. Each run reads the file first (untimed); the timed span starts at
    /// the bytes and ends when the population returns its result. Freeing the response and the
    /// result afterwards is timed apart (`free`).
    private func importTimes(original: String?) throws -> PhaseResult {
        let url = URL(fileURLWithPath: dataPath)
        var totals: [Timing] = []
        var parses: [Timing] = []
        var populates: [Timing] = []
        var frees: [Timing] = []
        var summary = ImportSummary()
        var byteCount = 0
        for _ in 0..<repetitions {
            try Self.withTemporaryStore(schema: schema) { store in
                if let original {
                    _ = try Self.populate(Data(contentsOf: URL(fileURLWithPath: original)), into: store)
                }
                let data = try Data(contentsOf: url)
                byteCount = data.count
                let split = try Self.populate(consume data, into: store)
                totals.append(split.parse + split.populate)
                parses.append(split.parse)
                populates.append(split.populate)
                frees.append(split.free)
                summary = split
            }
        }
        var result = PhaseResult()
        Self.record(totals, as: "seconds", in: &result)
        Self.record(parses, as: "parse", in: &result)
        Self.record(populates, as: "populate", in: &result)
        Self.record(frees, as: "free", in: &result)
        result["bytes"] = String(byteCount)
        result["records"] = String(summary.records)
        result["inserted"] = String(summary.inserted)
        result["updated"] = String(summary.updated)
        result["unchanged"] = String(summary.unchanged)
        result["warnings"] = String(summary.warnings)
        return result
    }

    /// Times a paged request for every page, served from memory: each page is parsed and
    /// populated in its own transaction, as from a web service, without the network.
    private func pagedImport() async throws -> PhaseResult {
        let files = try FileManager.default.contentsOfDirectory(atPath: dataPath).filter { $0.hasPrefix("page-") }
        var pages: [String: Data] = [:]
        for file in files {
            let index = file.dropFirst("page-".count).prefix { $0.isNumber }
            pages["page/\(index)"] = try Data(contentsOf: URL(fileURLWithPath: dataPath).appendingPathComponent(file))
        }
        let server = InMemoryPageServer(pages: pages)
        var times: [Timing] = []
        var records = 0
        for _ in 0..<repetitions {
            try await Self.withTemporaryStore(schema: schema) { store in
                store.register(server, forEntity: "Post")
                let options = PagingOptions(pagination: .nextURL(keyPath: "meta.next"))
                let start = Timing.now()
                var inserted = 0
                for try await page in store.pages(entity: "Post", urn: "page/0", options: options) {
                    inserted += page.result.changes.inserted
                }
                times.append(Timing.now() - start)
                records = inserted
            }
        }
        var result = PhaseResult()
        Self.record(times, as: "seconds", in: &result)
        result["records"] = String(records)
        result["bytes"] = String(pages.values.reduce(0) { $0 + $1.count })
        result["pages"] = String(pages.count)
        return result
    }

    private func baseline() throws -> PhaseResult {
        let generator = AppNetGenerator(postCount: postCount)
        var times: [Timing] = []
        var rowCount = 0
        for _ in 0..<repetitions {
            try Self.withTemporaryStore(schema: schema) { store in
                let tables = try BaselineRows.tables(for: generator, store: store)
                rowCount = tables.reduce(0) { $0 + $1.rows.count }
                times.append(
                    try Self.measure {
                        try store.write { connection in
                            for table in tables {
                                for row in table.rows { try connection.execute(table.insertSQL, row) }
                            }
                        }
                        return 0
                    }.timing)
            }
        }
        var result = PhaseResult()
        Self.record(times, as: "seconds", in: &result)
        result["records"] = String(rowCount)
        return result
    }

    private func queries() throws -> PhaseResult {
        let data = try Data(contentsOf: URL(fileURLWithPath: dataPath))
        let counter = StatementCounter()
        var configuration = RecordStore.Configuration()
        configuration.sqlObserver = { sql in counter.count(sql) }
        var result = PhaseResult()
        try Self.withTemporaryStore(schema: schema, configuration: configuration) { store in
            counter.reset()
            let first = try Self.populate(data, into: store)
            (result["selectsFirst"], result["statementsFirst"]) = counter.totals
            counter.reset()
            _ = try Self.populate(data, into: store)
            (result["selectsRepeat"], result["statementsRepeat"]) = counter.totals
            result["records"] = String(first.records)
        }
        return result
    }

    /// Populates the posts, observes them all by date (`Post.date` descending), then, `--repeat`
    /// times (at least 11), populates a response that changes 10 posts' text and times from the
    /// end of that population (its commit) to the delivery. The first delivery is timed too.
    private func observe() async throws -> PhaseResult {
        let data = try Data(contentsOf: URL(fileURLWithPath: dataPath))
        let response = try JSONReader().read(data)
        let posts = response["data"]?.arrayValue ?? []
        var latencies: [Timing] = []
        var initial = Timing()
        var delivered = 0
        var modified = 0
        var residentAfterInitial = 0
        var residentAfterRounds = 0
        try await Self.withTemporaryStore(schema: schema) { store in
            _ = try await store.populate(response, entity: "Post")
            let start = Timing.now()
            var iterator = store.observe("Post", orderBy: [.descending("date")]).makeAsyncIterator()
            delivered = try await iterator.next()?.records.count ?? 0
            initial = Timing.now() - start
            residentAfterInitial = ProcessMemory.residentBytes() ?? 0
            for round in 0..<max(repetitions, 11) {
                // Ten posts a round, spread over the stream, starting further on each round (and
                // over again on a short stream): each round changes at least one post.
                let step = max(1, posts.count / 10)
                let changed = stride(from: round % step, to: posts.count, by: step).prefix(10).map {
                    index -> JSONValue in
                    guard var post = posts[index].objectValue else { return posts[index] }
                    post["text"] = .string("changed in round \(round)")
                    return .object(post)
                }
                _ = try await store.populate(["data": .array(changed)], entity: "Post")
                let committed = Timing.now()
                let next = try await iterator.next()
                latencies.append(Timing.now() - committed)
                modified = next?.changes?.modifications.count ?? 0
            }
            residentAfterRounds = ProcessMemory.residentBytes() ?? 0
        }
        var result = PhaseResult()
        Self.record(latencies, as: "seconds", in: &result)
        Self.record([initial], as: "initial", in: &result)
        result["records"] = String(delivered)
        result["modified"] = String(modified)
        result["rounds"] = String(latencies.count)
        // Memory held after the initial results and after every round: an observation keeps its
        // results once, so the rounds add nothing that grows with them.
        result["residentInitial"] = String(residentAfterInitial)
        result["residentRounds"] = String(residentAfterRounds)
        result["bytes"] = String(data.count)
        return result
    }

    private func generate() throws -> PhaseResult {
        let generator = AppNetGenerator(postCount: postCount)
        let bytes = generator.json()
        try Data(bytes).write(to: URL(fileURLWithPath: dataPath))
        try Data(generator.changed().json()).write(to: URL(fileURLWithPath: dataPath + ".changed.json"))
        var result = PhaseResult()
        result["bytes"] = String(bytes.count)
        result["records"] = String(generator.recordCount)
        return result
    }

    // MARK: - Helpers

    struct ImportSummary {
        var parse = Timing()
        var populate = Timing()
        /// Freeing the response and the population's result, once done with.
        var free = Timing()
        var records = 0
        var inserted = 0
        var updated = 0
        var unchanged = 0
        var warnings = 0
    }

    /// Parses and populates, as a request does: the bytes are let go once parsed, and
    /// everything but the counts is freed before it returns.
    static func populate(_ data: consuming Data, into store: RecordStore) throws -> ImportSummary {
        var summary = ImportSummary()
        let start = Timing.now()
        var parsed = start
        var populated = start
        do {
            let response = try JSONReader().read(data)
            _ = consume data
            parsed = Timing.now()
            let population = try store.populate(response, entity: "Post")
            populated = Timing.now()
            let changes = population.changes
            summary.records = changes.inserted + changes.updated + changes.unchanged
            summary.inserted = changes.inserted
            summary.updated = changes.updated
            summary.unchanged = changes.unchanged
            summary.warnings = population.debugger.warnings.count
        }
        let end = Timing.now()
        summary.parse = parsed - start
        summary.populate = populated - parsed
        summary.free = end - populated
        return summary
    }

    static func measure<T>(_ body: () throws -> T) throws -> (timing: Timing, value: T) {
        let start = Timing.now()
        let value = try body()
        return (Timing.now() - start, value)
    }

    static func withTemporaryStore(
        schema: Schema, configuration: RecordStore.Configuration = RecordStore.Configuration(),
        _ body: (RecordStore) throws -> Void
    ) throws {
        let (store, directory) = try makeTemporaryStore(schema: schema, configuration: configuration)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(store)
    }

    static func withTemporaryStore(schema: Schema, _ body: (RecordStore) async throws -> Void) async throws {
        let (store, directory) = try makeTemporaryStore(schema: schema, configuration: RecordStore.Configuration())
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(store)
    }

    /// A store file in a new temporary directory (removed by the caller).
    private static func makeTemporaryStore(
        schema: Schema, configuration: RecordStore.Configuration
    ) throws -> (RecordStore, URL) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webrecord-bench-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try RecordStore(
            path: directory.appendingPathComponent("bench.sqlite").path, schema: schema, configuration: configuration)
        return (store, directory)
    }

    /// Records the best wall time of `times` as `name`, their median as `name.median`, and the
    /// best CPU time as `name.cpu`: the best run is the one least disturbed by the rest of the
    /// machine, the median shows the spread, and CPU time is what the work itself cost.
    static func record(_ times: [Timing], as name: String, in result: inout PhaseResult) {
        result[name] = format(times.map(\.wall).min() ?? 0)
        result[name + ".median"] = format(median(times.map(\.wall)))
        result[name + ".cpu"] = format(times.map(\.cpu).min() ?? 0)
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func format(_ seconds: Double) -> String {
        String(format: "%.6f", seconds)
    }
}

/// Serves the pages of a stream from memory, parsing each as a web service's client would.
struct InMemoryPageServer: Server {
    let pages: [String: Data]

    func response(for request: ServerRequest) async throws -> ServerResponse {
        guard let bytes = pages[request.urn] else { throw BenchmarkError("no page '\(request.urn)'") }
        return ServerResponse(body: try JSONReader().read(bytes))
    }
}

/// Counts the statements a store runs, and its SELECTs.
///
/// `Sendable` through its lock: the store calls the observer from whichever thread writes.
final class StatementCounter: Sendable {
    private let counts = Locked((selects: 0, statements: 0))

    func count(_ sql: String) {
        let isSelect = sql.prefix(6).uppercased() == "SELECT"
        counts.withLock { counts in
            counts.statements += 1
            if isSelect { counts.selects += 1 }
        }
    }

    func reset() {
        counts.withLock { $0 = (0, 0) }
    }

    /// SELECTs and statements counted since the last reset, as text.
    var totals: (String, String) {
        counts.withLock { (String($0.selects), String($0.statements)) }
    }
}

/// Wall-clock and CPU time: a point in both, or the time between two points.
///
/// CPU time is the process's (`CLOCK_PROCESS_CPUTIME_ID`); the benchmark is single-threaded,
/// so on an idle machine the two agree, and on a busy one the CPU time shows what the work
/// cost without the time spent waiting for a core.
struct Timing {
    var wall = 0.0
    var cpu = 0.0

    static func now() -> Timing {
        Timing(wall: seconds(CLOCK_MONOTONIC), cpu: seconds(CLOCK_PROCESS_CPUTIME_ID))
    }

    static func - (lhs: Timing, rhs: Timing) -> Timing {
        Timing(wall: lhs.wall - rhs.wall, cpu: lhs.cpu - rhs.cpu)
    }

    static func + (lhs: Timing, rhs: Timing) -> Timing {
        Timing(wall: lhs.wall + rhs.wall, cpu: lhs.cpu + rhs.cpu)
    }

    private static func seconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
