import Foundation
import WebRecord

/// `webrecord lint SCHEMA...`: loads the files as one schema and lists every problem.
enum LintCommand: Subcommand {
    static let spec = CommandSpec(
        name: "lint",
        abstract: "Check schema files and list every problem.",
        discussion: """
            The files are loaded together as one schema, so relationships may cross files.
            When the schema is valid, prints one line per file on standard output,
            FILE: N entities, M relationships: ok (nothing with --quiet), and exits 0;
            otherwise prints one line per problem, FILE: Entity.property: message, and exits 1.
            """,
        options: [OptionSpec(name: "--quiet", valueName: nil, help: "Print nothing when the schema is valid.")],
        arguments: [ArgumentSpec(name: "schema", help: "A schema file (JSON).", isRepeatable: true)],
        examples: ["webrecord lint Schemas/AppNet.json"])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let urls = arguments.positionals.map { URL(fileURLWithPath: $0) }
        let schema: Schema
        do {
            schema = try Schema(contentsOf: urls)
        } catch {
            Output.out(error.problems.map { $0.locatedMessage + "\n" }.joined())
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
