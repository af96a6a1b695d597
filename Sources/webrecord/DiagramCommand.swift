import Foundation
import WebRecord

/// `webrecord diagram SCHEMA... [--format mermaid|dot]`: a picture of a schema.
enum DiagramCommand: Subcommand {
    static let spec = CommandSpec(
        name: "diagram",
        abstract: "Draw a schema's entities and relationships, as Mermaid or DOT.",
        discussion: """
            Each entity shows its primary key (PK) and the attributes it declares; each
            relationship is one line with its cardinality at both ends, labelled with its name and
            its inverse's; a sub-entity points to its parent ("is a"). Mermaid is what code hosts
            render in Markdown; DOT is Graphviz's (dot -Tsvg).
            """,
        options: [
            OptionSpec(
                name: "--format", valueName: "format", help: "mermaid (the default) or dot.",
                choices: SchemaDiagram.Format.allCases.map(\.rawValue))
        ],
        arguments: [ArgumentSpec(name: "schema", help: "A schema file (JSON).", isRepeatable: true)],
        examples: ["webrecord diagram Schemas/AppNet.json"])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let name = arguments.value("--format") ?? SchemaDiagram.Format.mermaid.rawValue
        guard let format = SchemaDiagram.Format(rawValue: name) else {
            let formats = SchemaDiagram.Format.allCases.map(\.rawValue).joined(separator: " or ")
            throw UsageError(message: "invalid --format '\(name)'; expected \(formats)", command: spec)
        }
        let schema = try StoreAccess.loadSchema(arguments.positionals)
        Output.out(SchemaDiagram(schema: schema).render(format))
        return ExitStatus.success
    }
}
