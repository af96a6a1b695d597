import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// What a long paged run, or a run of many URL sources, keeps in memory: `webrecord populate`
/// in a child process against a loopback server, its peak resident size (`VmHWM`) after a few
/// pages or sources compared with that after many more. A run may keep a few bytes per page
/// (the hash of its request, the `_id`s of its records), never a page's response or request.
/// Each page carries 32 KB that no attribute reads, so that keeping any of a page's response
/// shows at once. Nothing here is timed.
@Suite("Reliability: memory across pages and sources", .loadsTheMachine, .serialized)
struct ReliabilityPagingMemoryTests {
    /// The most a page may add to the peak resident size, in bytes.
    static let bytesPerPage = 4 * 1024
    /// The most a URL source may add to the peak resident size, in bytes: its server and URL
    /// session are released with it, but the C library keeps some of the memory they used.
    static let bytesPerSource = 8 * 1024
    static let schemaJSON = """
        {"version": 1, "entities": {"Item": {"primaryKey": "id", "keyPathForResponseObject": "data",
          "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}}}}}
        """
    static let padding = String(repeating: "x", count: 32 * 1024)

    /// A page of one record, `id`, and the padding.
    static func page(_ id: Int) -> LoopbackResponse {
        .json(#"{"data": [{"id": \#(id), "name": "item \#(id)"}], "padding": "\#(padding)"}"#)
    }

    /// The peak resident size, in bytes, of `webrecord populate` with `arguments`.
    static func peak(_ arguments: [String], directory: TemporaryDirectory, db: String) async throws -> Int {
        let schema = try directory.write("memory-schema.json", schemaJSON)
        let child = try ChildProcess.Running(
            try ChildProcess.webrecord(),
            ["populate", "--schema", schema, "--db", directory.path(db), "--entity", "Item", "--quiet"] + arguments)
        let peak = await child.peakResidentBytes(timeout: 600)
        let result = try await child.wait()
        #expect(result.status == 0, "\(result)")
        return try #require(peak, "the child's memory could not be read")
    }

    @Test(
        "A paged run's memory does not grow with its pages",
        .enabled(if: !Reliability.isSanitized, "sanitizers change memory use"))
    func memoryIsFlatAcrossPages() async throws {
        let directory = try TemporaryDirectory()
        func run(pages: Int, db: String) async throws -> Int {
            let server = try LoopbackHTTPServer()
            server.route("/list", (1...pages).map(Self.page) + [.json(#"{"data": []}"#)])
            let bytes = try await Self.peak(
                ["--paginate", "page:page", server.url("/list").absoluteString], directory: directory, db: db)
            #expect(server.requests.count == pages + 1)
            return bytes
        }
        let few = try await run(pages: 50, db: "few.sqlite")
        let many = try await run(pages: 550, db: "many.sqlite")
        let perPage = (many - few) / 500
        #expect(
            perPage <= Self.bytesPerPage,
            "peak resident size grew from \(few / 1024) KB (50 pages) to \(many / 1024) KB (550 pages): \(perPage) bytes a page"
        )
        print("[reliability] paged run: peak \(few / 1024) KB after 50 pages, \(many / 1024) KB after 550 pages")
    }

    @Test(
        "A run's memory does not grow with its URL sources",
        .enabled(if: !Reliability.isSanitized, "sanitizers change memory use"))
    func memoryIsFlatAcrossURLSources() async throws {
        let directory = try TemporaryDirectory()
        func run(sources: Int, db: String) async throws -> Int {
            let server = try LoopbackHTTPServer()
            server.route("/item", (1...sources).map(Self.page))
            let urls = (1...sources).map { server.url("/item?n=\($0)").absoluteString }
            let bytes = try await Self.peak(urls, directory: directory, db: db)
            #expect(server.requests.count == sources)
            return bytes
        }
        let few = try await run(sources: 50, db: "few.sqlite")
        let many = try await run(sources: 550, db: "many.sqlite")
        let perSource = (many - few) / 500
        #expect(
            perSource <= Self.bytesPerSource,
            "peak resident size grew from \(few / 1024) KB (50 sources) to \(many / 1024) KB (550 sources): \(perSource) bytes a source"
        )
        print("[reliability] URL sources: peak \(few / 1024) KB after 50 sources, \(many / 1024) KB after 550 sources")
    }
}
