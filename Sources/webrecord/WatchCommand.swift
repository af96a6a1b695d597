import Dispatch
import Foundation
import WebRecord

/// `webrecord watch --schema S --db DB --entity E [--where EXPR --arg V]... [--order-by
/// FIELD[:desc]]`: an observation of the store, one JSON line per change, until interrupted.
enum WatchCommand: Subcommand {
    static let spec = CommandSpec(
        name: "watch",
        abstract: "Follow an entity's records: a JSON line per change.",
        discussion: """
            Prints {"count": N} for the records that match now, then, after every committed
            change to them (by this process or another, such as webrecord populate run from
            another shell), one line {"deleted": [...], "inserted": [...], "modified": [...]}
            with their primary keys as export prints them. --where is one SQL expression over
            the entity's columns, run read-only, with a ? for each --arg, in order. Another
            process's changes show within about a second on a SQLite file, within milliseconds
            on PostgreSQL (LISTEN/NOTIFY). SIGINT (Ctrl-C) or a closed pipe ends it with status
            0. The store must already exist.
            """,
        options: [
            .schemaFiles, .store("The store: a SQLite file, which must exist, or a postgresql:// URL."),
            .entity("The entity to watch, sub-entities included."),
            OptionSpec(name: "--where", valueName: "expr", help: "An SQL condition the records must meet."),
            OptionSpec(
                name: "--arg", valueName: "value", help: "A value for the next ? of --where, as text.",
                isRepeatable: true),
            OptionSpec(
                name: "--order-by", valueName: "field[:desc]",
                help: "The order whose moves count as changes; by default insertion order."),
        ],
        arguments: [],
        examples: [
            "webrecord watch --schema Schemas/AppNet.json --db appnet.sqlite --entity Post --where \"text LIKE ?\" --arg %swift%"
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let location = try StoreAccess.storeLocation(arguments.value("--db"), command: spec)
        let schema = try StoreAccess.loadSchema(arguments.values("--schema"))
        let entity = try StoreAccess.requireEntity(arguments.value("--entity") ?? "", in: schema)
        let predicate = arguments.value("--where")
        let values = arguments.values("--arg")
        if predicate == nil, !values.isEmpty {
            throw UsageError(message: "--arg needs --where, whose ? it fills", command: spec)
        }
        var order: [WebRecord.SortOrder] = []
        if let field = arguments.value("--order-by") {
            let parts = field.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            switch (parts.count, parts.last) {
            case (1, _): order = [.ascending(field)]
            case (2, "desc"?): order = [.descending(parts[0])]
            case (2, "asc"?): order = [.ascending(parts[0])]
            default:
                throw UsageError(message: "invalid --order-by '\(field)'; expected FIELD or FIELD:desc", command: spec)
            }
        }
        let store = try StoreAccess.openExisting(location, schema: schema)
        defer { store.close() }
        let observation = store.observe(entity.name, where: predicate, arguments: values, orderBy: order)
        var keyIsRelationship = false
        if case .relationship? = entity.primaryKey { keyIsRelationship = true }
        var file: String?
        if case .file(let path) = location { file = path }
        return try await watch(
            observation, store: location.name, file: file.flatMap(FileIdentity.init),
            keyIsRelationship: keyIsRelationship)
    }

    /// Prints the observation's deliveries until SIGINT, a closed pipe or a failure.
    ///
    /// - Parameter keyIsRelationship: whether the entity's key is a relationship: its records'
    ///   keys are then read while they are stored and kept by `_id`, since a record deleted with
    ///   its owner has no owner left to read its key from.
    /// - Parameter file: the store file opened, for a SQLite store: watch follows that file, so
    ///   it ends with an error when the path no longer names it (deleted, or replaced by a `mv`).
    private static func watch(
        _ observation: RecordObservation<Record>, store path: String, file: FileIdentity?, keyIsRelationship: Bool
    ) async throws -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let task = Task { () throws -> Bool in
            var previous: [Record] = []
            var liveKeys: [Int64: JSONValue] = [:]
            for try await results in observation {
                let line: JSONValue
                if let changes = results.changes {
                    let deleted = changes.deletions.map { index in
                        let record = previous[index]
                        return keyIsRelationship ? liveKeys[record.rowID] ?? key(of: record) : key(of: record)
                    }
                    if keyIsRelationship {
                        for index in changes.deletions { liveKeys[previous[index].rowID] = nil }
                        for index in changes.insertions {
                            liveKeys[results.records[index].rowID] = key(of: results.records[index])
                        }
                    }
                    line = [
                        "deleted": .array(deleted),
                        "inserted": .array(changes.insertions.map { key(of: results.records[$0]) }),
                        "modified": .array(changes.modifications.map { key(of: results.records[$0.new]) }),
                    ]
                } else {
                    if keyIsRelationship {
                        liveKeys = Dictionary(
                            results.records.map { ($0.rowID, key(of: $0)) }, uniquingKeysWith: { _, last in last })
                    }
                    line = ["count": .integer(Int64(results.records.count))]
                }
                guard Output.writeLine(line.serialized(sortedKeys: false)) else { return false }
                previous = results.records
            }
            return true
        }
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        signal(SIGINT, SIG_IGN)
        interrupt.setEventHandler { task.cancel() }
        interrupt.resume()
        defer { interrupt.cancel() }
        // A reader that goes away (`watch | head -n 1`) ends the command even while nothing
        // changes: a pipe whose reader closed reports an error to poll(2).
        let fileGone = Locked(false)
        let pipeWatch = Task {
            while !Task.isCancelled {
                if Output.isStandardOutputClosed {
                    task.cancel()
                    return
                }
                if let file, FileIdentity(file.path) != file {
                    fileGone.withLock { $0 = true }
                    task.cancel()
                    return
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        defer { pipeWatch.cancel() }
        let ended = await task.result
        if fileGone.withLock({ $0 }) {
            throw Failure(
                "\(path): the store file was deleted or replaced; watch follows the file it opened, so start it again")
        }
        switch ended {
        case .success: return ExitStatus.success
        // Ended by SIGINT or a closed pipe: the cancellation may reach the observation inside
        // one of its reads, which then fails as cancelled instead of ending the iteration.
        case .failure(let error) where task.isCancelled && isCancellation(error): return ExitStatus.success
        case .failure(let error as WebRecordError): throw Failure("\(path): \(StoreAccess.describe(error))")
        case .failure(let error): throw Failure("\(path): \(error)")
        }
    }

    /// Whether `error` is a cancellation: Swift's, or WebRecord's `cancelled`.
    private static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        return (error as? WebRecordError)?.code == .cancelled
    }

    /// A record's key as `export` prints it: its primary-key value, or its `_id` when the entity
    /// has no primary key.
    private static func key(of record: Record) -> JSONValue {
        record.primaryKeyValue ?? .integer(record.rowID)
    }
}

/// A file as the file system knows it (device and inode), to tell when a path names another
/// file than the one opened.
struct FileIdentity: Equatable, Sendable {
    let path: String
    let device: UInt64
    let inode: UInt64

    /// The file `path` names now, or nil when it names none.
    init?(_ path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.path = path
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
