import WebRecord

/// One option a subcommand accepts: `--name <value>` or a `--name` flag.
struct OptionSpec: Sendable {
    /// The long name, with its dashes: `--schema`.
    var name: String
    /// The value's placeholder in help (`<schema>`), or nil for a flag that takes no value.
    var valueName: String?
    /// What the option does, one line.
    var help: String
    /// Whether the option must be given.
    var isRequired = false
    /// Whether the option may be given more than once.
    var isRepeatable = false
    /// The values a shell completes for it; empty for a file or free text.
    var choices: [String] = []
    /// Whether its value is a file name, which a shell completes.
    var isFile = false

    /// `--schema <schema>` or `--json`.
    var synopsis: String {
        valueName.map { "\(name) <\($0)>" } ?? name
    }
}

extension OptionSpec {
    /// `--schema <schema> ...`: the schema files, loaded as one schema.
    static let schemaFiles = OptionSpec(
        name: "--schema", valueName: "schema", help: "A schema file. Repeat it to load several files as one schema.",
        isRequired: true, isRepeatable: true, isFile: true)

    /// `--db <db>`, a store file that `help` describes.
    static func store(_ help: String) -> OptionSpec {
        OptionSpec(name: "--db", valueName: "db", help: help, isRequired: true, isFile: true)
    }

    /// `--entity <name>`, the entity that `help` describes.
    static func entity(_ help: String) -> OptionSpec {
        OptionSpec(name: "--entity", valueName: "name", help: help, isRequired: true)
    }
}

/// A positional argument: `<source> ...`.
struct ArgumentSpec: Sendable {
    /// The placeholder, without angle brackets.
    var name: String
    /// What the argument is, one line.
    var help: String
    /// Whether more than one may be given.
    var isRepeatable: Bool
    /// Whether at least one must be given.
    var isRequired = true
    /// The values a shell completes for it; empty for a file.
    var choices: [String] = []

    var synopsis: String {
        "<\(name)>" + (isRepeatable ? " ..." : "")
    }
}

/// A subcommand's interface: name, abstract, options and arguments. Drives parsing and help.
struct CommandSpec: Sendable {
    var name: String
    /// One line, shown in the tool's help and as the subcommand's overview.
    var abstract: String
    /// Extra paragraphs shown after the overview in the subcommand's help.
    var discussion: String?
    var options: [OptionSpec]
    var arguments: [ArgumentSpec]
    /// Command lines shown under EXAMPLES (all but watch's, import-model's and completion's run as they are
    /// from the package's root, on its bundled schema and example data).
    var examples: [String] = []

    /// The usage line: `webrecord populate --schema <schema> ... [--json] <source> ...`.
    var usage: String {
        var parts = ["\(Tool.name) \(name)"]
        for option in options {
            let text = option.synopsis + (option.isRepeatable ? " ..." : "")
            parts.append(option.isRequired ? text : "[\(text)]")
        }
        for argument in arguments {
            parts.append(argument.isRequired ? argument.synopsis : "[\(argument.synopsis)]")
        }
        return parts.joined(separator: " ")
    }

    /// The full `--help` text, ending with a newline.
    var helpText: String {
        var text = "OVERVIEW: \(abstract)\n"
        if let discussion {
            // Paragraphs are separated by blank lines; each is rewrapped at 80 columns.
            for paragraph in discussion.components(separatedBy: "\n\n") {
                let words = paragraph.split(whereSeparator: \.isNewline).joined(separator: " ")
                text += "\n" + HelpFormatter.wrap(words, width: HelpFormatter.lineWidth).joined(separator: "\n") + "\n"
            }
        }
        text += "\nUSAGE: \(usage)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in arguments { text += HelpFormatter.row(argument.synopsis, argument.help) }
        }
        text += "\nOPTIONS:\n"
        for option in options {
            text += HelpFormatter.row(option.synopsis, option.help)
        }
        text += HelpFormatter.row("-h, --help", "Show help information.")
        if !examples.isEmpty {
            text += "\nEXAMPLES:\n" + examples.map(HelpFormatter.example).joined()
        }
        return text
    }

    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }
}

/// Lays out two-column help rows the way swift-argument-parser does, wrapped at 80 columns.
enum HelpFormatter {
    static let labelWidth = 24
    static let lineWidth = 80

    /// `  $ webrecord ...`, continued on indented lines ending in ` \` when it is longer
    /// than a line, as a shell would take it.
    static func example(_ command: String) -> String {
        let lines = wrap(command, width: lineWidth - 6)
        return lines.enumerated().map { index, line in
            (index == 0 ? "  $ " : "      ") + line + (index < lines.count - 1 ? " \\" : "")
        }.joined(separator: "\n") + "\n"
    }

    /// `  label                   help`, the help wrapped under itself, or starting on the next
    /// line when the label is too long to share one.
    static func row(_ label: String, _ help: String) -> String {
        let indent = String(repeating: " ", count: labelWidth + 2)
        let lines = wrap(help, width: lineWidth - indent.count)
        let indented = "  " + label
        var text: String
        var rest = lines[...]
        if indented.count < indent.count - 1 {
            text =
                indented.padding(toLength: indent.count, withPad: " ", startingAt: 0) + (rest.popFirst() ?? "") + "\n"
        } else {
            text = indented + "\n"
        }
        for line in rest { text += indent + line + "\n" }
        return text
    }

    /// Splits text into lines of at most `width` characters, at spaces (a longer word stays whole).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        lines.append(current)
        return lines
    }
}

/// What the command line asked for, after parsing.
struct ParsedArguments {
    /// Each option's values, in the order given; a flag has one empty value per use.
    var options: [String: [String]] = [:]
    /// The positional arguments, in order.
    var positionals: [String] = []

    /// The value of a single-value option, if given.
    func value(_ name: String) -> String? { options[name]?.last }

    /// Every value of a repeatable option.
    func values(_ name: String) -> [String] { options[name] ?? [] }

    /// Whether a flag was given.
    func flag(_ name: String) -> Bool { options[name] != nil }
}

/// A mistake in how the tool was called: exit status 2, with a usage line.
struct UsageError: Error {
    var message: String
    /// The subcommand whose usage to show, or nil for the tool's.
    var command: CommandSpec?
}

/// Why parsing stopped without arguments: the user asked for help.
struct HelpRequest: Error {
    var command: CommandSpec
}

/// Parses a subcommand's arguments the way swift-argument-parser does, by hand.
///
/// `--name value` and `--name=value` both work; `--` ends the options; `-h`/`--help`
/// anywhere before `--` asks for help; an unknown option is a usage error with a
/// "did you mean" hint; a required option or argument that is missing is named.
enum CommandLineParser {
    static func parse(_ arguments: [String], for command: CommandSpec) throws -> ParsedArguments {
        // Help wins over every other mistake, as in swift-argument-parser.
        for argument in arguments {
            if argument == "--" { break }
            if argument == "-h" || argument == "--help" { throw HelpRequest(command: command) }
        }
        var result = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                result.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = command.option(named: name) else {
                throw UsageError(message: unknownOptionMessage(name, command: command), command: command)
            }
            let value: String
            if option.valueName == nil {
                if inlineValue != nil {
                    throw UsageError(message: "option '\(name)' takes no value", command: command)
                }
                value = ""
            } else if let inlineValue {
                value = inlineValue
            } else if index < arguments.count, !isOptionLike(arguments[index]) {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError(message: "missing value for '\(option.synopsis)'", command: command)
            }
            if result.options[name] != nil, !option.isRepeatable {
                throw UsageError(message: "option '\(name)' may be given only once", command: command)
            }
            result.options[name, default: []].append(value)
        }
        for option in command.options where option.isRequired && result.options[option.name] == nil {
            throw UsageError(message: "missing expected option '\(option.synopsis)'", command: command)
        }
        let required = command.arguments.filter(\.isRequired)
        if result.positionals.count < required.count {
            let missing = required[result.positionals.count]
            throw UsageError(message: "missing expected argument '\(missing.synopsis)'", command: command)
        }
        if !command.arguments.contains(where: \.isRepeatable), result.positionals.count > command.arguments.count {
            let extra = result.positionals[command.arguments.count]
            throw UsageError(message: "unexpected argument '\(extra)'", command: command)
        }
        return result
    }

    /// Whether an argument would be read as an option rather than as a value.
    private static func isOptionLike(_ argument: String) -> Bool {
        argument.hasPrefix("-") && argument != "-" && Double(argument) == nil
    }

    static func unknownOptionMessage(_ name: String, command: CommandSpec?) -> String {
        var candidates = ["--help"]
        candidates += command?.options.map(\.name) ?? Tool.options
        var message = "unknown option '\(name)'"
        // A single-dash spelling of a long option (`-json`) is a near miss too.
        let bare = name.drop { $0 == "-" }
        if let suggestion = NameSuggestion.closest(to: String(name), in: candidates)
            ?? NameSuggestion.closest(to: "--" + bare, in: candidates)
        {
            message += ". Did you mean '\(suggestion)'?"
        }
        return message
    }
}
