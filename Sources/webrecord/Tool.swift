import Foundation
import WebRecord

/// `webrecord`: the command-line tool. Dispatches to a subcommand and turns what it throws
/// into an exit status: 0 for success, 1 for a failure, 2 for a usage error.
@main
struct Tool {
    static let name = "webrecord"
    static let version = "0.1.0"
    static let abstract = "Turn web-service JSON responses into a SQLite object graph."
    /// The tool's own options, besides the subcommands'.
    static let options = ["--help", "--version"]

    /// Every subcommand, in the order the help lists them.
    static let commands: [CommandEntry] = [
        CommandEntry(LintCommand.self), CommandEntry(PopulateCommand.self), CommandEntry(ExportCommand.self),
        CommandEntry(WatchCommand.self), CommandEntry(ImportModelCommand.self), CommandEntry(DiagramCommand.self),
        CommandEntry(GenerateSwiftCommand.self), CommandEntry(CompletionCommand.self),
    ]

    static let usage = "\(name) <subcommand>"

    static var helpText: String {
        var text = "OVERVIEW: \(abstract)\n\nUSAGE: \(usage)\n\nOPTIONS:\n"
        text += HelpFormatter.row("--version", "Show the version.")
        text += HelpFormatter.row("-h, --help", "Show help information.")
        text += "\nSUBCOMMANDS:\n"
        for command in commands { text += HelpFormatter.row(command.spec.name, command.spec.abstract) }
        text += HelpFormatter.row("help", "Show subcommand help information.")
        text += "\n  See '\(name) help <subcommand>' for detailed help.\n"
        text += "\nEXAMPLES:\n" + commands.flatMap(\.spec.examples).prefix(2).map(HelpFormatter.example).joined()
        return text
    }

    static func main() async {
        // `run` returns only after every store it opened is closed (and its WAL checkpointed).
        var status = await run(Array(CommandLine.arguments.dropFirst()))
        // A result standard output refused (a full disk) is lost: no success, whatever the
        // command made of it.
        if let failure = Output.writeFailure {
            Output.err("\(name): error: standard output: \(failure); the output is incomplete\n")
            if status == ExitStatus.success { status = ExitStatus.failure }
        }
        exit(status)
    }

    /// Runs the tool with `arguments` (without the program name) and returns the exit status.
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            return try await dispatch(arguments)
        } catch let request as HelpRequest {
            Output.out(request.command.helpText)
            return ExitStatus.success
        } catch let error as UsageError {
            reportUsage(error)
            return ExitStatus.usage
        } catch let failure as Failure {
            Output.err("\(name): error: \(failure.message)\n")
            return ExitStatus.failure
        } catch {
            Output.err("\(name): error: \(Failure.oneLine("\(error)"))\n")
            return ExitStatus.failure
        }
    }

    /// The environment variable that sets WebRecord's logging level: none, info, debug or all.
    static let loggingLevelVariable = "WEBRECORD_LOGGING_LEVEL"

    /// The values of ``loggingLevelVariable``, MMRecord's four levels, in this order, and the
    /// ``Record/loggingLevel`` each sets.
    static let loggingLevels: [(name: String, level: LogLevel?)] = [
        ("none", .none), ("info", .info), ("debug", .debug), ("all", .all),
    ]

    /// Sets WebRecord's logging level from ``loggingLevelVariable``, ignoring case; the
    /// library's default, `none`, when it is not set.
    ///
    /// - Throws: ``UsageError`` for a value that is not a level.
    static func configureLogging(_ environment: [String: String]) throws {
        guard let value = environment[loggingLevelVariable] else { return }
        guard let known = loggingLevels.first(where: { $0.name == value.lowercased() }) else {
            let levels = loggingLevels.map(\.name).joined(separator: ", ")
            throw UsageError(
                message: "invalid \(loggingLevelVariable) '\(value)'; expected one of \(levels)", command: nil)
        }
        Record.loggingLevel = known.level
    }

    private static func dispatch(_ arguments: [String]) async throws -> Int32 {
        guard let first = arguments.first else {
            throw UsageError(message: "missing expected subcommand", command: nil)
        }
        switch first {
        case "-h", "--help":
            Output.out(helpText)
            return ExitStatus.success
        case "--version":
            Output.out(version + "\n")
            return ExitStatus.success
        case "help":
            let rest = arguments.dropFirst().filter { $0 != "-h" && $0 != "--help" }
            guard let name = rest.first else {
                Output.out(helpText)
                return ExitStatus.success
            }
            if name == "help" {
                Output.out(helpText)
                return ExitStatus.success
            }
            guard let command = command(named: name) else { throw unknownSubcommand(name) }
            Output.out(command.spec.helpText)
            return ExitStatus.success
        default:
            if first.hasPrefix("-") {
                // Help wins over the mistakes around it, as a subcommand's does.
                if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) {
                    Output.out(helpText)
                    return ExitStatus.success
                }
                throw UsageError(message: CommandLineParser.unknownOptionMessage(first, command: nil), command: nil)
            }
            guard let command = command(named: first) else { throw unknownSubcommand(first) }
            let parsed = try CommandLineParser.parse(Array(arguments.dropFirst()), for: command.spec)
            // After parsing, so that help and the command line's own mistakes come first.
            try configureLogging(ProcessInfo.processInfo.environment)
            return try await command.run(parsed)
        }
    }

    private static func command(named name: String) -> CommandEntry? {
        commands.first { $0.spec.name == name }
    }

    private static func unknownSubcommand(_ name: String) -> UsageError {
        var message = "unknown subcommand '\(name)'"
        let names = commands.map { $0.spec.name } + ["help"]
        if let suggestion = NameSuggestion.closest(to: name, in: names) {
            message += ". Did you mean '\(suggestion)'?"
        }
        return UsageError(message: message, command: nil)
    }

    private static func reportUsage(_ error: UsageError) {
        var text = "\(name): error: \(error.message)\n"
        if let command = error.command {
            text += "Usage: \(command.usage)\n"
            text += "  See '\(name) \(command.name) --help' for more information.\n"
        } else {
            text += "Usage: \(usage)\n"
            text += "  See '\(name) --help' for more information.\n"
        }
        Output.err(text)
    }
}

/// A subcommand: its interface and what it does.
protocol Subcommand: Sendable {
    static var spec: CommandSpec { get }
    /// Runs with parsed arguments; returns the exit status or throws a ``Failure`` or ``UsageError``.
    static func run(_ arguments: ParsedArguments) async throws -> Int32
}

/// A subcommand in the tool's list: its interface and its entry point.
struct CommandEntry: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) async throws -> Int32

    init<Command: Subcommand>(_ command: Command.Type) {
        spec = Command.spec
        run = { try await Command.run($0) }
    }
}

/// The tool's exit statuses.
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
}

/// A failure reported as one line, `webrecord: error: MESSAGE`, with exit status 1.
struct Failure: Error {
    var message: String

    init(_ message: String) {
        self.message = Failure.oneLine(message)
    }

    /// The text on one line: line breaks become "; ".
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }
}
