import Foundation
import WebRecord

/// `webrecord generate-swift SCHEMA... [--output DIR] [--access public|internal]
/// [--base-class NAME]`: typed record classes for a schema's entities.
enum GenerateSwiftCommand: Subcommand {
    static let spec = CommandSpec(
        name: "generate-swift",
        abstract: "Write typed Swift record classes for a schema.",
        discussion: """
            Each entity gets a class with an accessor per attribute, of its Swift type, and per
            relationship, typed by its destination's class; a sub-entity's class inherits its
            parent's. A last file declares an enum, named after the schema files, whose
            register(on:) registers every class on a store. Names that are Swift keywords are
            escaped with backticks; names that Record already has (entity, rowID...) get the
            suffix Attribute or Relationship, and the generated comment says so. Without
            --output, everything is one file on standard output; with it, one file per class is
            written into the directory, which is created if needed.
            """,
        options: [
            OptionSpec(
                name: "--output", valueName: "dir", help: "Write one file per class into this directory.", isFile: true),
            OptionSpec(
                name: "--access", valueName: "level", help: "internal (the default) or public.",
                choices: SwiftGenerator.Access.allCases.map(\.rawValue)),
            OptionSpec(
                name: "--base-class", valueName: "name",
                help: "The class root entities' classes inherit from: a subclass of Record of yours."),
        ],
        arguments: [ArgumentSpec(name: "schema", help: "A schema file (JSON).", isRepeatable: true)],
        examples: [
            "webrecord generate-swift Schemas/AppNet.json",
            "webrecord generate-swift Schemas/AppNet.json --access public --output Generated",
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let name = arguments.value("--access") ?? SwiftGenerator.Access.internal.rawValue
        guard let access = SwiftGenerator.Access(rawValue: name) else {
            throw UsageError(message: "invalid --access '\(name)'; expected internal or public", command: spec)
        }
        let baseClass = arguments.value("--base-class")
        if let baseClass, SwiftNaming.identifier(for: baseClass, upper: true) != baseClass {
            throw UsageError(
                message: "invalid --base-class '\(baseClass)'; expected a Swift class name such as ADNRecord",
                command: spec)
        }
        let schema = try StoreAccess.loadSchema(arguments.positionals)
        let files = arguments.positionals.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }
        let generator = SwiftGenerator(schema: schema, schemaFiles: files, access: access, baseClass: baseClass)
        if let baseClass, generator.generates(baseClass) || SwiftNaming.moduleNames.contains(baseClass) {
            throw UsageError(
                message: "invalid --base-class '\(baseClass)'; a generated class has that name: choose another",
                command: spec)
        }
        guard let output = arguments.value("--output") else {
            Output.out(generator.singleFile())
            return ExitStatus.success
        }
        let directory = URL(fileURLWithPath: output, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for file in generator.files() {
                try Data(file.text.utf8).write(to: directory.appendingPathComponent(file.name), options: .atomic)
            }
        } catch {
            throw Failure("cannot write into \(output): \(error.localizedDescription)")
        }
        let count = schema.entities.count
        Output.err(
            "wrote \(count) \(count == 1 ? "class" : "classes") and \(generator.namespace).swift into \(output)\n")
        return ExitStatus.success
    }
}
