import Foundation
import WebRecord

/// `webrecord populate`: each SOURCE is one response, populated in one transaction.
enum PopulateCommand: Subcommand {
    static let spec = CommandSpec(
        name: "populate",
        abstract: "Populate a store from JSON responses (files or http(s) URLs).",
        discussion: """
            Each source is one response, populated in its own transaction: a source that fails
            leaves the store as it was before it, and the sources before it stay populated.
            The store is created when it does not exist.
            """,
        options: [
            OptionSpec(
                name: "--schema", valueName: "schema", help: "A schema file. Repeat it to load several files as one schema.",
                isRequired: true, isRepeatable: true),
            OptionSpec(name: "--db", valueName: "db", help: "The store file (SQLite), created if missing.", isRequired: true),
            OptionSpec(name: "--entity", valueName: "name", help: "The entity of the records in each response.", isRequired: true),
            OptionSpec(
                name: "--key-path", valueName: "key-path",
                help: "Where the records are in a response; overrides the entity's keyPathForResponseObject."),
            OptionSpec(name: "--json", valueName: nil, help: "Print the summary as one JSON object."),
            OptionSpec(name: "--quiet", valueName: nil, help: "Print no summary, warnings or progress; errors only."),
            OptionSpec(
                name: "--header", valueName: "header", help: "An HTTP header sent with URL sources, as 'Name: value'. May be repeated.",
                isRepeatable: true),
            OptionSpec(name: "--timeout", valueName: "seconds", help: "How long each URL source may take, in seconds."),
        ],
        arguments: [ArgumentSpec(
            name: "source", help: "A JSON file, '-' for standard input, or an http(s) URL.", isRepeatable: true)])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let fetch = try URLFetchOptions(headers: arguments.values("--header"), timeout: arguments.value("--timeout"))
        let sources = arguments.positionals.map(Source.init)
        let json = arguments.flag("--json")
        let quiet = arguments.flag("--quiet")
        let schema = try StoreAccess.loadSchema(arguments.values("--schema"))
        let entity = try StoreAccess.requireEntity(arguments.value("--entity") ?? "", in: schema)
        var options = PopulationOptions()
        options.keyPath = arguments.value("--key-path")

        let summary = try await populate(
            sources, entity: entity.name, schema: schema, path: arguments.value("--db") ?? "", options: options,
            fetch: fetch)

        if json {
            Output.out(bytes: summary.json.serializedBytes(prettyPrinted: true) + [UInt8(ascii: "\n")])
        } else if !quiet {
            Output.out(summary.text(entity: entity.name))
            for warning in summary.warnings {
                Output.err("\(Tool.name): warning: \(warning.message) [\(warning.code)]\n")
            }
        }
        return ExitStatus.success
    }

    /// Populates every source in turn; the store is opened once the first source has been read,
    /// so a first source that cannot be read leaves no new file behind.
    private static func populate(
        _ sources: [Source], entity: String, schema: Schema, path: String, options: PopulationOptions,
        fetch: URLFetchOptions
    ) async throws -> PopulationSummary {
        var summary = PopulationSummary(schema: schema)
        var store: RecordStore?
        for (index, source) in sources.enumerated() {
            let response: JSONValue
            do {
                response = try await source.load(entity: entity, fetch: fetch)
            } catch let failure as Failure {
                throw Failure(failure.message + savedNote(index))
            }
            let opened = try store ?? StoreAccess.open(path: path, schema: schema)
            store = opened
            do {
                let result = try opened.populate(response, entity: entity, options: options)
                summary.add(result)
            } catch {
                throw Failure("\(source.name): \(StoreAccess.describe(error.error))" + savedNote(index))
            }
        }
        return summary
    }

    /// "; the 2 sources before it were saved", or nothing for the first source.
    private static func savedNote(_ index: Int) -> String {
        switch index {
        case 0: ""
        case 1: "; the source before it was saved"
        default: "; the \(index) sources before it were saved"
        }
    }
}

/// One SOURCE argument: a file, standard input or an http(s) URL.
struct Source {
    enum Kind {
        case file(String)
        case standardInput
        case url(URL)
    }

    /// The argument as given, for messages.
    var name: String
    var kind: Kind

    init(_ argument: String) {
        name = argument
        let lowered = argument.lowercased()
        if argument == "-" {
            kind = .standardInput
        } else if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let url = URL(string: argument) {
            kind = .url(url)
        } else {
            kind = .file(argument)
        }
    }

    /// Reads and parses the response.
    ///
    /// - Throws: ``Failure`` naming the source: unreadable, malformed JSON (with line and
    ///   column), or a failed HTTP request.
    func load(entity: String, fetch: URLFetchOptions) async throws -> JSONValue {
        let data: Data
        switch kind {
        case .file(let path):
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw Failure("\(name): no such file")
            }
            if isDirectory.boolValue { throw Failure("\(name): is a directory") }
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw Failure("\(name): cannot be read")
            }
        case .standardInput:
            data = FileHandle.standardInput.readDataToEndOfFile()
        case .url(let url):
            return try await URLSource.fetch(url, entity: entity, options: fetch)
        }
        do {
            return try JSONReader().read(data)
        } catch {
            throw Failure("\(name): malformed JSON: \(error.message)")
        }
    }
}
