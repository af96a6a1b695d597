import Foundation
import WebRecord

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

    /// The `--db` value, checked: it must name a store file that keeps what is written to it.
    ///
    /// SQLite reads the empty string as a temporary database deleted on close, `:memory:` as a
    /// database in memory, and a `file:` URI (this tool opens stores with URIs enabled) may
    /// name either (`file::memory:`, `file:x?mode=memory`, `file:`, `vfs=memdb`): a run would
    /// report records inserted and keep none. A directory is no store either.
    ///
    /// - Throws: ``UsageError`` naming the flag and why.
    static func storePath(_ value: String?, command: CommandSpec) throws -> String {
        let path = value ?? ""
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
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw refuse("it is a directory. Give the store file's path")
        }
        return path
    }

    /// Opens (creating if needed) a store.
    static func open(path: String, schema: Schema) throws -> RecordStore {
        do {
            return try RecordStore(path: path, schema: schema)
        } catch {
            throw Failure("\(path): \(describe(error))")
        }
    }

    /// Opens a store that must already exist; never creates a file.
    static func openExisting(path: String, schema: Schema) throws -> RecordStore {
        // ``storePath(_:command:)`` has refused a directory already.
        guard FileManager.default.fileExists(atPath: path) else {
            throw Failure("\(path): no such store")
        }
        return try open(path: path, schema: schema)
    }

    /// A WebRecord error as the message part of a one-line failure: `code: location: message`.
    static func describe(_ error: WebRecordError) -> String {
        var text = "\(error.code): \(error.locatedMessage)"
        if let code = error.sqliteCode { text += " [SQLite \(code)]" }
        return text
    }
}
