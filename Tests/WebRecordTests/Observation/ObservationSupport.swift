import Foundation
import TestSupport
import WebRecord

/// A schema for the observation tests: posts with a rank, a category and an author; authors
/// with their posts.
enum ObservationSupport {
    static let schemaJSON = observationSchemaJSON

    static func schema() throws -> Schema { try Schema(json: schemaJSON) }

    /// A post as a response gives it.
    static func post(_ id: Int, title: String? = nil, rank: Int = 0, category: String = "a", author: Int? = nil)
        -> JSONValue
    {
        var object: JSONObject = [
            "id": .integer(Int64(id)), "title": .string(title ?? "post \(id)"), "rank": .integer(Int64(rank)),
            "category": .string(category),
        ]
        if let author { object["author"] = ["id": .integer(Int64(author)), "name": .string("author \(author)")] }
        return .object(object)
    }

    /// The ids of records, as the tests compare them.
    static func ids(_ records: [Record]) -> [Int64] {
        records.compactMap { $0["id"] as Int64? }
    }
}

/// A store file of the observation schema in a directory of its own, and the posts populated
/// into it, for the suites that observe it.
struct ObservedStore {
    let directory: TemporaryDirectory
    let store: RecordStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try RecordStore(path: directory.path("observed.sqlite"), schema: ObservationSupport.schema())
    }

    /// Populates posts, in one transaction.
    func populate(_ posts: [JSONValue]) async throws {
        _ = try await store.populate(.array(posts), entity: "Post")
    }
}

/// Posts, typed.
final class ObservedPost: Record {
    override class var entityName: String { "Post" }
    var id: Int64 { self[primaryKey: "id"] }
    var title: String? { self["title"] }
}
