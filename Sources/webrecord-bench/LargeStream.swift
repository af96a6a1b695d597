import Foundation

/// `webrecord populate` on one large response file (about 1 GB for 750,000 posts), as a whole
/// process: its time, and its peak memory against the streaming target (under 400 MB).
///
/// Generate the file first with `--phase generate --posts 750000 --data FILE`; it takes a few
/// minutes, so the phase is not part of the default run.
struct LargeStream {
    /// The response file.
    let dataPath: String
    /// The schema file `webrecord populate` reads.
    let schemaPath: String

    /// The streaming target: the peak memory of the whole process.
    static let peakLimit = 400 * 1024 * 1024

    func run() throws -> PhaseResult {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("webrecord-bench-stream-large-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let store = scratch.appendingPathComponent("large.sqlite").path
        let webrecord = TimedCommand(executable: try ReferenceComparison.webRecordExecutable(), scratch: scratch)
        let run = try webrecord.run([
            "populate", "--schema", schemaPath, "--db", store, "--entity", "Post", "--json", dataPath,
        ])
        let bytes = (try FileManager.default.attributesOfItem(atPath: dataPath)[.size] as? Int) ?? 0
        var result = PhaseResult()
        result["large.bytes"] = String(bytes)
        result["large.seconds"] = String(format: "%.3f", run.wall)
        result["large.cpu"] = String(format: "%.3f", run.cpu)
        result["large.peak"] = String(run.peakBytes)
        result["large.met"] = run.peakBytes < Self.peakLimit ? "yes" : "no"
        if let data = run.output.data(using: .utf8), let summary = try? JSONSerialization.jsonObject(with: data),
            let object = summary as? [String: Any], let records = object["records"]
        {
            result["large.records"] = "\(records)"
        }
        return result
    }
}
