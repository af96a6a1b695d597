import Foundation
import WebRecord

/// `webrecord export --schema SCHEMA --db DB --entity NAME`: an entity's records as a JSON array.
enum ExportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Print an entity's records as a JSON array, sorted by primary key.",
        discussion: """
            Attributes appear by name (dates as ISO-8601 UTC text, data as base64); a to-one
            relationship as the destination's primary-key value or null; a to-many as an array
            of those values, in stored order when ordered, ascending otherwise. The store must
            already exist.
            """,
        options: [
            .schemaFiles, .store("The store: a SQLite file, which must exist, or a postgresql:// URL."),
            .entity("The entity to export, sub-entities included."),
        ],
        arguments: [],
        examples: ["webrecord export --schema Schemas/AppNet.json --db appnet.sqlite --entity User"])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let location = try StoreAccess.storeLocation(arguments.value("--db"), command: spec)
        let schema = try StoreAccess.loadSchema(arguments.values("--schema"))
        let entity = try StoreAccess.requireEntity(arguments.value("--entity") ?? "", in: schema)
        let json = try export(entity: entity.name, schema: schema, location: location)
        Output.out(bytes: json.serializedBytes(prettyPrinted: true) + [UInt8(ascii: "\n")])
        return ExitStatus.success
    }

    /// Opens the existing store, exports, and closes the store before returning.
    private static func export(entity: String, schema: Schema, location: StoreLocation) throws -> JSONValue {
        let store = try StoreAccess.openExisting(location, schema: schema)
        defer { store.close() }
        do {
            return try store.exportJSON(entity: entity)
        } catch {
            throw Failure("\(location.name): \(StoreAccess.describe(error))")
        }
    }
}
