import Foundation
import WebRecord

// webrecord-bench: WebRecord's performance benchmark. See Docs/Performance.md.
//
//   swift run -c release webrecord-bench [--posts N] [--quick]
//
// Without --phase it generates the responses and runs every phase in a child process of
// itself (`--phase NAME ...`), then prints the figures and the targets.

do {
    let options = try BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
    if options.help {
        print(BenchmarkOptions.usage)
        print("Runs WebRecord's benchmark on generated App.net-shaped data and prints the figures and targets.")
        exit(0)
    }
    let schemaPath = try options.resolvedSchemaPath()
    if let phase = options.phase {
        guard let dataPath = options.dataPath else { throw BenchmarkError("--phase needs --data FILE") }
        let schema = try Schema(contentsOf: URL(fileURLWithPath: schemaPath))
        let runner = PhaseRunner(
            phase: phase, schema: schema, schemaPath: schemaPath, dataPath: dataPath,
            originalPath: options.originalPath,
            postCount: options.posts, repetitions: options.repetitions ?? 1)
        print(try await runner.run().line)
    } else {
        try Benchmark(options: options, schemaPath: schemaPath).run()
    }
} catch let error as BenchmarkError {
    FileHandle.standardError.write(Data("webrecord-bench: \(error)\n".utf8))
    exit(error.description.contains("usage:") ? 2 : 1)
} catch {
    FileHandle.standardError.write(Data("webrecord-bench: \(error)\n".utf8))
    exit(1)
}
