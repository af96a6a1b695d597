import Foundation

/// `webrecord completion bash|zsh`: a completion script for the shell, written from the
/// subcommands' own specifications, so it never lags behind them.
enum CompletionCommand: Subcommand {
    static let shells = ["bash", "zsh"]

    static let spec = CommandSpec(
        name: "completion",
        abstract: "Print a shell completion script (bash or zsh).",
        discussion: """
            Completes the subcommands, their options, the values of options that take a fixed
            set (--format), and file names elsewhere. Load it in bash with
            source <(webrecord completion bash); for zsh, save it as _webrecord in a directory
            of $fpath.
            """,
        options: [],
        arguments: [ArgumentSpec(name: "shell", help: "bash or zsh.", isRepeatable: false, choices: shells)],
        examples: ["webrecord completion bash > /etc/bash_completion.d/webrecord"])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let shell = arguments.positionals.first ?? ""
        switch shell {
        case "bash": Output.out(bash(Tool.commands.map(\.spec)))
        case "zsh": Output.out(zsh(Tool.commands.map(\.spec)))
        default:
            throw UsageError(message: "unknown shell '\(shell)'; expected bash or zsh", command: spec)
        }
        return ExitStatus.success
    }

    /// A bash function, `_webrecord`, registered with `complete`.
    static func bash(_ commands: [CommandSpec]) -> String {
        let names = (commands.map(\.name) + ["help", "--help", "--version"]).joined(separator: " ")
        var script = """
            # webrecord completion for bash: source <(webrecord completion bash)
            _webrecord() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" opts=""
                if [[ $COMP_CWORD -eq 1 ]]; then
                    COMPREPLY=($(compgen -W "\(names)" -- "$cur"))
                    return
                fi
                case "${COMP_WORDS[1]}" in

            """
        for command in commands {
            let options = (command.options.map(\.name) + ["--help"]).joined(separator: " ")
            if let choices = command.arguments.first?.choices, !choices.isEmpty {
                script += "        \(command.name)) if [[ $COMP_CWORD -eq 2 && \"$cur\" != -* ]]; then "
                script += "COMPREPLY=($(compgen -W \"\(choices.joined(separator: " "))\" -- \"$cur\")); return; fi\n"
                script += "            opts=\"\(options)\" ;;\n"
            } else {
                script += "        \(command.name)) opts=\"\(options)\" ;;\n"
            }
        }
        script +=
            "        help) COMPREPLY=($(compgen -W \"\(commands.map(\.name).joined(separator: " "))\" -- \"$cur\")); return ;;\n"
        script += "    esac\n    case \"$prev\" in\n"
        for option in commands.flatMap(\.options) where !option.choices.isEmpty {
            script +=
                "        \(option.name)) COMPREPLY=($(compgen -W \"\(option.choices.joined(separator: " "))\" -- \"$cur\")); return ;;\n"
        }
        script += """
                esac
                if [[ "$cur" == -* ]]; then
                    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
                else
                    COMPREPLY=($(compgen -f -- "$cur"))
                fi
            }
            complete -o filenames -F _webrecord webrecord

            """
        return script
    }

    /// A zsh completion function, for a file `_webrecord` in `$fpath`.
    static func zsh(_ commands: [CommandSpec]) -> String {
        var script = """
            #compdef webrecord
            # webrecord completion for zsh: save as _webrecord in a directory of $fpath

            _webrecord() {
                local -a subcommands
                subcommands=(

            """
        for command in commands {
            script += "        '\(command.name):\(quoted(command.abstract))'\n"
        }
        script += """
                    'help:Show subcommand help information.'
                )
                if (( CURRENT == 2 )); then
                    _describe 'subcommand' subcommands
                    return
                fi
                case $words[2] in

            """
        for command in commands {
            var specs = command.options.map { option -> String in
                let prefix = option.isRepeatable ? "*" : ""
                let help = "[\(quoted(option.help).replacingOccurrences(of: "]", with: "\\]"))]"
                guard let value = option.valueName else { return "'\(prefix)\(option.name)\(help)'" }
                let action =
                    option.choices.isEmpty
                    ? (option.isFile ? "_files" : " ") : "(\(option.choices.joined(separator: " ")))"
                return "'\(prefix)\(option.name)\(help):\(value):\(action)'"
            }
            specs.append("'--help[Show help information.]'")
            for argument in command.arguments {
                let action = argument.choices.isEmpty ? "_files" : "(\(argument.choices.joined(separator: " ")))"
                specs.append("'\(argument.isRepeatable ? "*" : "")::\(argument.name):\(action)'")
            }
            script += "        \(command.name)) _arguments \(specs.joined(separator: " ")) ;;\n"
        }
        script += """
                esac
            }

            _webrecord "$@"

            """
        return script
    }

    /// `text` inside single quotes: each `'` closes, escapes and reopens the quote.
    private static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "'", with: #"'\''"#).replacingOccurrences(of: ":", with: #"\:"#)
    }
}
