import Foundation
import WebRecord

/// The second part of `--phase postgres`: several workers populating one PostgreSQL database.
///
/// Four different responses of `--posts` posts each, with no post and no user in common
/// (generated with their own seeds and ids offset by `--posts` from one to the next), are
/// populated into one empty database by one `webrecord populate` process each: one process
/// after another (serial), and all four at once (parallel), each timed from the first process's
/// start to the last one's exit. The rounds alternate which goes first, each on a new empty
/// database, and the figures are the medians of the rounds. After every run the database is
/// checked to hold every post and every user of the four responses, and the phase fails,
/// loudly, if it does not.
///
/// The same two runs are also timed into a database whose tables are already made (by a
/// population of one other post, untimed), which shows what starting on an empty database costs
/// the workers: the target is judged on the empty database.
struct PostgreSQLWorkers {
    /// The schema file `webrecord populate` reads.
    let schemaPath: String
    /// Posts in each response.
    let postCount: Int
    let rounds: Int
    let server: BenchmarkPostgreSQL
    /// A directory for the responses and the children's output.
    let scratch: URL

    /// The number of workers, and of responses.
    static let workers = 4
    /// All at once take at most this fraction of the time one after another take.
    static let target = 0.6

    /// How the workers run, and into what.
    enum Mode: String, CaseIterable {
        case serial
        case parallel
        case serialIntoMadeTables = "serial.made"
        case parallelIntoMadeTables = "parallel.made"

        /// Whether the four processes run at once.
        var atOnce: Bool { self == .parallel || self == .parallelIntoMadeTables }
        /// Whether the database's tables are made before the timed run.
        var intoMadeTables: Bool { self == .serialIntoMadeTables || self == .parallelIntoMadeTables }

        var title: String {
            switch self {
            case .serial: "one after another"
            case .parallel: "all \(PostgreSQLWorkers.workers) at once"
            case .serialIntoMadeTables: "one after another, tables made"
            case .parallelIntoMadeTables: "all \(PostgreSQLWorkers.workers) at once, tables made"
            }
        }
    }

    /// A generated response.
    struct Response {
        var path: String
        var posts: Int
        var users: Int
    }

    func run() throws -> (result: PhaseResult, lines: [String]) {
        let responses = try generate()
        let tablesMaker = try generate(index: Self.workers, posts: 1)
        let posts = responses.reduce(0) { $0 + $1.posts }
        let users = responses.reduce(0) { $0 + $1.users }
        let webrecord = TimedCommand(executable: try ReferenceComparison.webRecordExecutable(), scratch: scratch)

        var walls: [Mode: [Double]] = [:]
        var clientCPU: [Mode: [Double]] = [:]
        var serverCPU: [Mode: [Double]] = [:]
        for round in 1...rounds {
            for mode in round % 2 == 1 ? Mode.allCases : Mode.allCases.reversed() {
                let database = "workers_\(mode.rawValue.replacingOccurrences(of: ".", with: "_"))_r\(round)"
                try server.createEmptyDatabase(database)
                func populate(_ response: Response) -> [String] {
                    [
                        "populate", "--schema", schemaPath, "--db", server.url(database), "--entity", "Post", "--json",
                        response.path,
                    ]
                }
                if mode.intoMadeTables {
                    _ = try webrecord.run(populate(tablesMaker))
                    try server.checkpoint()
                }
                let commands = responses.map(populate)
                let serverBefore = server.serverCPUSeconds()
                let start = Timing.now()
                let runs =
                    mode.atOnce
                    ? try Self.runAtOnce(commands, with: webrecord) : try commands.map { try webrecord.run($0) }
                walls[mode, default: []].append(Timing.now().wall - start.wall)
                let serverAfter = server.serverCPUSeconds()
                serverCPU[mode, default: []].append(
                    serverBefore.flatMap { before in serverAfter.map { $0 - before } } ?? 0)
                clientCPU[mode, default: []].append(runs.reduce(0) { $0 + $1.cpu })
                let made = mode.intoMadeTables ? 1 : 0
                try server.expectRows(
                    posts: posts + made * tablesMaker.posts, users: users + made * tablesMaker.users, in: database,
                    after: "\(Self.workers) webrecord populate processes, \(mode.title), round \(round)")
                try server.dropDatabase(database)
            }
        }

        var result = PhaseResult()
        for mode in Mode.allCases {
            let name = "workers.\(mode.rawValue)"
            result[name] = PhaseRunner.format(PhaseRunner.median(walls[mode] ?? []))
            result[name + ".best"] = PhaseRunner.format(walls[mode]?.min() ?? 0)
            result[name + ".cpu"] = PhaseRunner.format(PhaseRunner.median(clientCPU[mode] ?? []))
            result[name + ".server.cpu"] = PhaseRunner.format(PhaseRunner.median(serverCPU[mode] ?? []))
        }
        func median(_ mode: Mode) -> Double { PhaseRunner.median(walls[mode] ?? []) }
        let ratio = median(.parallel) / median(.serial)
        result["workers.ratio"] = String(format: "%.2f", ratio)
        result["workers.target"] = ratio <= Self.target ? "met" : "not-met"
        result["workers.ratio.made"] = String(
            format: "%.2f", median(.parallelIntoMadeTables) / median(.serialIntoMadeTables))
        result["workers.posts"] = String(posts)
        result["workers.users"] = String(users)
        return (result, lines(result: result, responses: responses))
    }

    /// Starts every command at once and waits for all of them; the first failure is thrown once
    /// every child has been waited for.
    static func runAtOnce(_ commands: [[String]], with command: TimedCommand) throws -> [TimedCommand.Run] {
        var started: [TimedCommand.Started] = []
        var failure: Error?
        for arguments in commands {
            do {
                started.append(try command.start(arguments))
            } catch {
                failure = error
                break
            }
        }
        var runs: [TimedCommand.Run] = []
        for child in started {
            do {
                runs.append(try child.wait())
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        return runs
    }

    /// Writes the four responses into the scratch directory.
    private func generate() throws -> [Response] {
        try (0..<Self.workers).map { index in try generate(index: index, posts: postCount) }
    }

    /// Writes response number `index`, of `posts` posts, its ids above the responses before it.
    private func generate(index: Int, posts: Int) throws -> Response {
        let generator = AppNetGenerator(
            postCount: posts, seed: AppNetGenerator.defaultSeed &+ UInt64(index), idOffset: index * postCount)
        let path = scratch.appendingPathComponent("workers-\(index).json").path
        try Data(generator.json()).write(to: URL(fileURLWithPath: path))
        return Response(path: path, posts: generator.posts.count, users: generator.distinctUserCount)
    }

    // MARK: - The table

    private func lines(result: PhaseResult, responses: [Response]) -> [String] {
        let bytes = responses.reduce(0) { total, response in
            total + ((try? FileManager.default.attributesOfItem(atPath: response.path)[.size] as? Int) ?? 0)
        }
        var lines = [
            "\(Self.workers) workers into one PostgreSQL database: \(Self.workers) different responses of \(postCount) "
                + "posts (\(Report.megabytes(bytes)) MB in all, no post or user in common), one webrecord populate "
                + "process each, into an empty database; median of \(rounds) round(s), best in brackets",
            "",
        ]
        let header = ["workers", "wall s (best)", "webrecord CPU s", "server CPU s"]
        let rows = Mode.allCases.map { mode -> [String] in
            let name = "workers.\(mode.rawValue)"
            func figure(_ suffix: String) -> Double { Double(result[name + suffix] ?? "") ?? 0 }
            return [
                mode.title,
                String(format: "%.3f (%.3f)", figure(""), figure(".best")),
                String(format: "%.3f", figure(".cpu")),
                String(format: "%.3f", figure(".server.cpu")),
            ]
        }
        lines.append(contentsOf: PostgreSQLPhase.table(header: header, rows: rows))
        lines.append("")
        lines.append(
            "at once / one after another: \(result["workers.ratio"] ?? "?") (target <= \(Self.target): "
                + "\(result["workers.target"] ?? "?")); into a database whose tables are made (by one other post, "
                + "untimed): \(result["workers.ratio.made"] ?? "?")")
        lines.append(
            "checked after every run: \(result["workers.posts"] ?? "?") posts and \(result["workers.users"] ?? "?") "
                + "users stored (and the one other post and its user, where the tables were made first)")
        return lines
    }
}
