import Foundation
import WebRecord
import WebRecordPostgreSQL

/// Where `--db` says the store is: a SQLite file, or a PostgreSQL database.
enum StoreLocation {
    /// A SQLite store file's path.
    case file(String)
    /// A PostgreSQL connection URL (`postgresql://` or `postgres://`).
    case postgreSQL(String)

    /// The location as messages show it: a URL without its password.
    var name: String {
        switch self {
        case .file(let path): path
        case .postgreSQL(let url): Redaction.redacted(url: url)
        }
    }
}

/// Loading schemas and opening stores for the subcommands, with their failures as one line.
enum StoreAccess {
    /// Loads schema files as one schema.
    ///
    /// - Throws: ``Failure`` naming the first problem and how many more there are.
    static func loadSchema(_ paths: [String]) throws -> Schema {
        do {
            return try Schema(contentsOf: paths.map { URL(fileURLWithPath: $0) })
        } catch {
            let problems = error.problems
            guard let first = problems.first else { throw Failure("the schema could not be loaded") }
            var message = "invalid schema: \(first.locatedMessage)"
            if problems.count > 1 {
                message +=
                    " (and \(problems.count - 1) more \(problems.count == 2 ? "problem" : "problems"); run '\(Tool.name) lint' to list them)"
            }
            throw Failure(message)
        }
    }

    /// The entity named on the command line.
    ///
    /// - Throws: ``Failure`` with a "did you mean" hint when the schema has no such entity.
    static func requireEntity(_ name: String, in schema: Schema) throws -> Entity {
        if let entity = schema.entity(named: name) { return entity }
        var message = "the schema has no entity '\(name)'"
        if let suggestion = NameSuggestion.closest(to: name, in: schema.entities.map(\.name)) {
            message += ". Did you mean '\(suggestion)'?"
        }
        throw Failure(message)
    }

    /// The `--db` value, checked: a PostgreSQL connection URL (`postgresql://...` or
    /// `postgres://...`), or a store file that keeps what is written to it.
    ///
    /// SQLite reads the empty string as a temporary database deleted on close, `:memory:` as a
    /// database in memory, and a `file:` URI (this tool opens stores with URIs enabled) may
    /// name either (`file::memory:`, `file:x?mode=memory`, `file:`, `vfs=memdb`): a run would
    /// report records inserted and keep none. A directory is no store either.
    ///
    /// - Throws: ``UsageError`` naming the flag and why.
    static func storeLocation(_ value: String?, command: CommandSpec) throws -> StoreLocation {
        let path = value ?? ""
        let lowered = path.lowercased()
        if lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") { return .postgreSQL(path) }
        func refuse(_ reason: String) -> UsageError {
            UsageError(message: "invalid --db '\(path)': \(reason)", command: command)
        }
        if path.isEmpty {
            throw refuse(
                "the path is empty; SQLite would use a temporary database and keep nothing. Give the store file's path")
        }
        if path == ":memory:" {
            throw refuse("an in-memory database keeps nothing. Give the store file's path")
        }
        if path.hasPrefix("file:") {
            throw refuse(
                "SQLite would read it as a URI, which can name a database that keeps nothing (file::memory:, mode=memory). Give the store file's path; write './\(path)' for a file whose name starts with 'file:'"
            )
        }
        if Self.looksLikeConninfo(path) {
            // Not echoed: a connection string may hold a password.
            throw UsageError(
                message:
                    "invalid --db: it is a libpq connection string (keyword=value ...), which would be taken for a SQLite file's name. Give a postgresql:// URL (postgresql:///DB?host=DIR&user=NAME; libpq's PG* environment variables fill in the rest), or write './' before a file's name",
                command: command)
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw refuse("it is a directory. Give the store file's path")
        }
        return .file(path)
    }

    /// Whether `value` reads as a libpq connection string: its first word a libpq keyword
    /// followed by `=` (`dbname=ingest user=worker`, `host=/run/postgresql dbname=x`).
    static func looksLikeConninfo(_ value: String) -> Bool {
        let firstWord = value.drop { $0 == " " }.prefix { $0 != " " && $0 != "=" }
        let rest = value.drop { $0 == " " }.dropFirst(firstWord.count).drop { $0 == " " }
        return rest.hasPrefix("=") && conninfoKeywords.contains(String(firstWord))
    }

    /// libpq's connection keywords.
    static let conninfoKeywords: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service", "sslmode", "sslcert",
        "sslkey", "sslrootcert", "sslcrl", "sslpassword", "sslcompression", "sslsni", "requiressl",
        "application_name", "fallback_application_name", "options", "connect_timeout", "client_encoding",
        "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout",
        "target_session_attrs", "channel_binding", "gssencmode", "krbsrvname", "gsslib", "replication",
        "require_auth", "load_balance_hosts", "ssl_min_protocol_version", "ssl_max_protocol_version",
    ]

    /// Opens (creating a file if needed) a store.
    static func open(_ location: StoreLocation, schema: Schema) throws -> RecordStore {
        do {
            switch location {
            case .file(let path): return try RecordStore(path: path, schema: schema)
            case .postgreSQL(let url): return try RecordStore(postgreSQL: url, schema: schema)
            }
        } catch {
            // The line starts with the store's name already: the library's own mention of the
            // file at the start of its message (`the store 'PATH': ...`) would repeat it.
            var error = error
            let named = "the store '\(location.name)': "
            if error.message.hasPrefix(named) { error.message.removeFirst(named.count) }
            throw Failure("\(location.name): \(describe(error))")
        }
    }

    /// Opens a store that must already exist; never creates a file. A PostgreSQL database
    /// must exist for the connection to succeed.
    static func openExisting(_ location: StoreLocation, schema: Schema) throws -> RecordStore {
        // ``storeLocation(_:command:)`` has refused a directory already.
        if case .file(let path) = location, !FileManager.default.fileExists(atPath: path) {
            if let target = StoreFile.missingLinkTarget(path) {
                throw Failure("\(path): no such store: it is a symbolic link to '\(target)', which is missing")
            }
            throw Failure("\(path): no such store")
        }
        return try open(location, schema: schema)
    }

    /// A WebRecord error as the message part of a one-line failure: `code: location: message`.
    static func describe(_ error: WebRecordError) -> String {
        var text = "\(error.code): \(error.locatedMessage)"
        if let code = error.sqliteCode { text += " [SQLite \(code)]" }
        return text
    }
}
