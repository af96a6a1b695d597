import Foundation
import WebRecord

/// `webrecord lint SCHEMA... [--backend sqlite|postgresql]`: loads the files as one schema and
/// lists every problem, those of the backend's limits included.
enum LintCommand: Subcommand {
    static let spec = CommandSpec(
        name: "lint",
        abstract: "Check schema files and list every problem.",
        discussion: """
            The files are loaded together as one schema, so relationships may cross files.
            When the schema is valid, prints one line per file on standard output,
            FILE: N entities, M relationships: ok (nothing with --quiet), and exits 0;
            otherwise prints one line per problem, FILE: Entity.property: message, and exits 1.

            --backend names the database of the store: sqlite (the default), whose limits every
            valid schema keeps, or postgresql, which also needs names of at most 63 bytes, tables
            of at most 1600 columns and indexes of at most 32 columns.
            """,
        options: [
            OptionSpec(name: "--quiet", valueName: nil, help: "Print nothing when the schema is valid."),
            OptionSpec(
                name: "--backend", valueName: "backend", help: "sqlite (the default) or postgresql.",
                choices: LintBackend.allCases.map(\.rawValue)),
        ],
        arguments: [ArgumentSpec(name: "schema", help: "A schema file (JSON).", isRepeatable: true)],
        examples: ["webrecord lint Schemas/AppNet.json"])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let name = arguments.value("--backend") ?? LintBackend.sqlite.rawValue
        guard let backend = LintBackend(rawValue: name) else {
            let backends = LintBackend.allCases.map(\.rawValue).joined(separator: " or ")
            throw UsageError(message: "invalid --backend '\(name)'; expected \(backends)", command: spec)
        }
        let urls = arguments.positionals.map { URL(fileURLWithPath: $0) }
        let schema: Schema
        do {
            schema = try Schema(contentsOf: urls)
        } catch {
            Output.out(error.problems.map { $0.locatedMessage + "\n" }.joined())
            return ExitStatus.failure
        }
        let problems = backend.problems(in: schema)
        guard problems.isEmpty else {
            Output.out(problems.map { $0.locatedMessage + "\n" }.joined())
            return ExitStatus.failure
        }
        if !arguments.flag("--quiet") {
            Output.out(urls.map { summary(of: $0.relativePath, in: schema) + "\n" }.joined())
        }
        return ExitStatus.success
    }

    /// `FILE: 2 entities, 1 relationship: ok`: what one valid file declares. A relationship
    /// counts once, in the file of the entity that declares it (not of those that inherit it).
    static func summary(of file: String, in schema: Schema) -> String {
        let entities = schema.entities.filter { $0.fileName == file }
        let relationships = entities.reduce(0) { count, entity in
            count + entity.relationships.filter { $0.entityName == entity.name }.count
        }
        let entityCount = entities.count == 1 ? "1 entity" : "\(entities.count) entities"
        let relationshipCount = relationships == 1 ? "1 relationship" : "\(relationships) relationships"
        return "\(file): \(entityCount), \(relationshipCount): ok"
    }
}
