import Foundation

/// The whole benchmark: generates the responses, runs each phase in a child process, and
/// prints the figures and the targets.
struct Benchmark {
    let options: BenchmarkOptions
    let schemaPath: String

    /// One measured row of the report.
    struct Measurement {
        var name: String
        var posts: Int
        var fields: [String: String]

        var seconds: Double { Double(fields["seconds"] ?? "") ?? 0 }
        var medianSeconds: Double { Double(fields["seconds.median"] ?? "") ?? seconds }
        var cpuSeconds: Double { Double(fields["seconds.cpu"] ?? "") ?? seconds }
        var records: Int { Int(fields["records"] ?? "") ?? 0 }
        var bytes: Int { Int(fields["bytes"] ?? "") ?? 0 }
        var peakBytes: Int { Int(fields["peak"] ?? "") ?? 0 }
    }

    func run() throws {
        let repetitions = options.quick ? 1 : 5
        let posts = options.posts
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webrecord-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let scaledPosts = posts * 5
        let smallPosts = max(1, posts / 10)
        progress("generating App.net-shaped responses (\(posts), \(scaledPosts) and \(smallPosts) posts, seed fixed)")
        let main = try write(AppNetGenerator(postCount: posts), to: directory, name: "posts-\(posts)")
        let changed = try write(
            AppNetGenerator(postCount: posts).changed(), to: directory, name: "posts-\(posts)-changed")
        let scaled = try write(AppNetGenerator(postCount: scaledPosts), to: directory, name: "posts-\(scaledPosts)")
        let small = try write(AppNetGenerator(postCount: smallPosts), to: directory, name: "posts-\(smallPosts)")
        let paged = try writePages(
            AppNetGenerator(postCount: posts), count: Self.pageCount, to: directory, name: "pages-\(posts)")

        var report = Report(posts: posts, responseBytes: main.bytes)
        report.loadBefore = Self.loadAverage()
        func phase(
            _ title: String, _ phase: Phase, data: GeneratedFile, original: GeneratedFile? = nil, repeat count: Int
        ) throws -> Measurement {
            progress("running \(title)")
            var arguments = [
                "--phase", phase.rawValue, "--schema", schemaPath, "--data", data.path,
                "--posts", String(data.posts), "--repeat", String(count),
            ]
            if let original { arguments += ["--original", original.path] }
            var fields = try ChildProcess.run(arguments)
            if fields["records"] == nil { fields["records"] = String(data.records) }
            if fields["bytes"] == nil { fields["bytes"] = String(data.bytes) }
            return Measurement(name: title, posts: data.posts, fields: fields)
        }
        report.parse = try phase("JSON parse alone", .parse, data: main, repeat: repetitions)
        report.baseline = try phase("raw SQLite INSERTs (no JSON)", .baseline, data: main, repeat: repetitions)
        report.firstImport = try phase("first import", .firstImport, data: main, repeat: repetitions)
        report.reimportUnchanged = try phase(
            "re-import, unchanged", .reimportUnchanged, data: main, repeat: repetitions)
        // Whole processes, the Python reference's and `webrecord populate`'s, interleaved. Without
        // python3 or a `webrecord` built beside the benchmark, the rest still runs.
        if let missing = ReferenceComparison.missingPrerequisite() {
            report.versusPythonFailure = missing
        } else {
            do {
                report.versusPython = try phase(
                    "against the Python reference", .versusPython, data: main, repeat: repetitions)
            } catch {
                report.versusPythonFailure = "\(error)".trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        report.reimportChanged = try phase(
            "re-import, 10% changed", .reimportChanged, data: changed, original: main, repeat: repetitions)
        report.pagedImport = try phase(
            "paged import, \(Self.pageCount) pages", .pagedImport, data: paged, repeat: repetitions)
        report.scaledImport = try phase(
            "first import, 5x posts", .firstImport, data: scaled, repeat: options.quick ? 1 : 3)
        report.scaledBaseline = try phase(
            "raw SQLite INSERTs, 5x posts", .baseline, data: scaled, repeat: options.quick ? 1 : 3)
        report.smallQueries = try phase("queries", .queries, data: small, repeat: 1)
        report.queries = try phase("queries", .queries, data: main, repeat: 1)
        report.smallObservation = try phase("observation", .observe, data: small, repeat: 21)
        report.observation = try phase("observation", .observe, data: main, repeat: 21)
        report.loadAfter = Self.loadAverage()
        print(report.text(repetitions: repetitions))
    }

    /// The one-minute load average (`/proc/loadavg`), to show how busy the machine was.
    static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }
        return text.split(separator: " ").first.map(String.init) ?? "?"
    }

    // MARK: - Data

    struct GeneratedFile {
        var path: String
        var posts: Int
        var records: Int
        var bytes: Int
    }

    /// The number of pages of the paged import.
    static let pageCount = 50

    /// Writes the stream as pages, `page-0.json`… in a folder of their own.
    private func writePages(_ generator: AppNetGenerator, count: Int, to directory: URL, name: String) throws
        -> GeneratedFile
    {
        let folder = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var bytes = 0
        for (index, page) in generator.pages(count).enumerated() {
            try Data(page).write(to: folder.appendingPathComponent("page-\(index).json"))
            bytes += page.count
        }
        return GeneratedFile(
            path: folder.path, posts: generator.posts.count, records: generator.recordCount, bytes: bytes)
    }

    private func write(_ generator: AppNetGenerator, to directory: URL, name: String) throws -> GeneratedFile {
        let bytes = generator.json()
        let url = directory.appendingPathComponent(name + ".json")
        try Data(bytes).write(to: url)
        return GeneratedFile(
            path: url.path, posts: generator.posts.count, records: generator.recordCount, bytes: bytes.count)
    }

    /// Progress on standard error when it is a terminal, so standard output is only the report.
    private func progress(_ message: String) {
        guard isatty(STDERR_FILENO) != 0 else { return }
        FileHandle.standardError.write(Data("webrecord-bench: \(message)\n".utf8))
    }
}
