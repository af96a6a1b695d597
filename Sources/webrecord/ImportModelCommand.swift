import Foundation
import WebRecordModelImport

/// `webrecord import-model CONTENTS_XML`: prints the schema file for a Core Data model.
enum ImportModelCommand: Subcommand {
    static let spec = CommandSpec(
        name: "import-model",
        abstract: "Convert a Core Data model into a schema file.",
        discussion: """
            Reads the contents file of an .xcdatamodel (or the .xcdatamodel directory), with
            MMRecord's userInfo keys MMRecordEntityPrimaryAttributeKey and
            MMRecordAttributeAlternateNameKey, and prints the equivalent schema file.
            """,
        options: [],
        arguments: [
            ArgumentSpec(
                name: "contents-xml", help: "The model's contents file, or its .xcdatamodel directory.",
                isRepeatable: false)
        ],
        examples: ["webrecord import-model AppNet.xcdatamodel > Schemas/AppNet.json"])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let path = arguments.positionals[0]
        let text: String
        do {
            text = try CoreDataModelImporter.schemaJSON(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Failure(error.locatedMessage)
        }
        Output.out(text.hasSuffix("\n") ? text : text + "\n")
        return ExitStatus.success
    }
}
