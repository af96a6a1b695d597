import Foundation
import WebRecord

/// `webrecord lint SCHEMA...`: loads the files as one schema and lists every problem.
enum LintCommand: Subcommand {
    static let spec = CommandSpec(
        name: "lint",
        abstract: "Check schema files and list every problem.",
        discussion: """
            The files are loaded together as one schema, so relationships may cross files.
            Prints nothing and exits 0 when the schema is valid; otherwise prints one line per
            problem on standard output, FILE: Entity.property: message, and exits 1.
            """,
        options: [],
        arguments: [ArgumentSpec(name: "schema", help: "A schema file (JSON).", isRepeatable: true)])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let urls = arguments.positionals.map { URL(fileURLWithPath: $0) }
        let schema: Schema
        do {
            schema = try Schema(contentsOf: urls)
        } catch {
            Output.out(error.problems.map { $0.locatedMessage + "\n" }.joined())
            return ExitStatus.failure
        }
        if Output.isErrorTerminal {
            let files = urls.count == 1 ? "1 file" : "\(urls.count) files"
            let entities = schema.entities.count == 1 ? "1 entity" : "\(schema.entities.count) entities"
            Output.err("\(Tool.name): \(files), \(entities): no problems\n")
        }
        return ExitStatus.success
    }
}
