import Foundation
import TestSupport
import Testing

/// `webrecord completion bash|zsh`: scripts that the shells accept, written from the
/// subcommands' specifications; the bash one is run as bash runs a completion.
@Suite struct CompletionCommandTests {
    /// What `_webrecord` offers for the words of a command line, the last one being completed.
    static func bashCompletes(_ words: [String]) async throws -> [String] {
        let directory = try TemporaryDirectory()
        let script = try await CLI.run(["completion", "bash"])
        #expect(script.status == 0, "\(script)")
        let file = try directory.write("webrecord.bash", script.stdout)
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let run = try await ChildProcess.run(
            try ChildProcess.onPath("bash"),
            [
                "-c",
                #"source "$1"; COMP_WORDS=(\#(quoted)); COMP_CWORD=\#(words.count - 1); _webrecord; printf '%s\n' "${COMPREPLY[@]}""#,
                "bash", file,
            ],
            in: directory.url)
        #expect(run.status == 0, "\(run)")
        return run.stdoutLines.filter { !$0.isEmpty }
    }

    @Test func bashCompletesSubcommands() async throws {
        #expect(try await Self.bashCompletes(["webrecord", "li"]) == ["lint"])
        #expect(try await Self.bashCompletes(["webrecord", "d"]) == ["diagram"])
        #expect(try await Self.bashCompletes(["webrecord", "help", "ex"]) == ["export"])
    }

    @Test func bashCompletesEachSubcommandsOwnOptions() async throws {
        #expect(try await Self.bashCompletes(["webrecord", "populate", "--js"]) == ["--json"])
        #expect(
            try await Self.bashCompletes(["webrecord", "lint", "--"]).sorted() == ["--backend", "--help", "--quiet"])
        #expect(try await Self.bashCompletes(["webrecord", "export", "--js"]) == [], "export has no --json")
    }

    @Test func bashCompletesTheValuesOfAFixedSet() async throws {
        #expect(try await Self.bashCompletes(["webrecord", "diagram", "--format", ""]) == ["mermaid", "dot"])
        #expect(try await Self.bashCompletes(["webrecord", "completion", "z"]) == ["zsh"])
    }

    @Test func bothScriptsParse() async throws {
        let directory = try TemporaryDirectory()
        for shell in ["bash", "zsh"] {
            let script = try await CLI.run(["completion", shell])
            #expect(script.status == 0, "\(script)")
            let file = try directory.write("webrecord.\(shell)", script.stdout)
            let check = try await ChildProcess.run(try ChildProcess.onPath(shell), ["-n", file])
            #expect(check.status == 0, "\(shell) -n: \(check)")
        }
    }

    @Test func theZshScriptDescribesEveryCommandAndOption() async throws {
        let script = try await CLI.run(["completion", "zsh"]).stdout
        #expect(script.hasPrefix("#compdef webrecord\n"))
        for command in ["lint", "populate", "export", "import-model", "diagram", "completion"] {
            #expect(script.contains("        '\(command):"), "\(command) is offered")
            #expect(script.contains("        \(command)) _arguments "), "\(command)'s options are described")
        }
        #expect(script.contains("'--format[mermaid (the default) or dot.]:format:(mermaid dot)'"))
        #expect(
            script.contains("'*--schema[A schema file. Repeat it to load several files as one schema.]:schema:_files'"))
        #expect(
            script.contains("'--entity[The entity of the records in each response.]:name: '"), "no files for a name")
        #expect(script.contains("'::shell:(bash zsh)'"))
    }

    @Test func anUnknownShellIsAUsageError() async throws {
        let result = try await CLI.run(["completion", "fish"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderrLines.first == "webrecord: error: unknown shell 'fish'; expected bash or zsh")
    }
}
