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
            var message = "invalid schema: \(first)"
            if problems.count > 1 {
                message += " (and \(problems.count - 1) more \(problems.count == 2 ? "problem" : "problems"); run '\(Tool.name) lint' to list them)"
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
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Failure("\(path): no such store")
        }
        if isDirectory.boolValue { throw Failure("\(path): is a directory, not a store") }
        return try open(path: path, schema: schema)
    }

    /// A WebRecord error as the message part of a one-line failure: `code: message`.
    static func describe(_ error: WebRecordError) -> String {
        var text = "\(error.code): "
        if let entity = error.entity {
            text += (error.property.map { "\(entity).\($0)" } ?? entity) + ": "
        }
        text += error.message
        if let code = error.sqliteCode { text += " [SQLite \(code)]" }
        return text
    }
}
