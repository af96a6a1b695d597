import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// Responses whose shape is not what the schema declares, on PostgreSQL and on a SQLite file
/// alike (DESIGN §3.1): a missing key path fails the response, a page and a detail request, the
/// store as it was; a detail response is read at the schema's `keyPathForDetailResponse`; a
/// record refused for a missing non-optional value is named.
@Suite(.measuresTime) struct PostgreSQLResponseShapeTests {
    static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Customer": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "keyPathForDetailResponse": "",
              "attributes": {
                "id": { "type": "string" },
                "email": { "type": "string", "optional": false }
              }
            }
          }
        }
        """

    static let envelope = #"{"error": {"message": "rate limited"}, "status": 429}"#

    /// A PostgreSQL store and a SQLite file store for the schema, each with a loopback server.
    static func stores(_ directory: TemporaryDirectory) throws -> [RecordStore] {
        let schema = try Schema(json: schemaJSON, fileName: "Shapes.json")
        let server = try PostgreSQLTestServer.shared()
        return [
            try RecordStore(postgreSQL: server.url(database: try server.makeDatabase()), schema: schema),
            try RecordStore(path: directory.path("shapes.sqlite"), schema: schema),
        ]
    }

    static func failure(_ body: () async throws -> Void) async -> WebRecordError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? WebRecordError
        }
    }

    @Test func aMissingKeyPathFailsTheResponseAndLeavesTheStoreAsItWas() async throws {
        let directory = try TemporaryDirectory()
        var messages: [String] = []
        for store in try Self.stores(directory) {
            _ = try await store.populate(
                try JSONReader().read(#"{"data": [{"id": "cus_1", "email": "a@x"}]}"#), entity: "Customer")
            let before = try store.exportJSON(entity: "Customer")
            let error = await Self.failure {
                _ = try await store.populate(try JSONReader().read(Self.envelope), entity: "Customer")
            }
            #expect(error?.code == .invalidResponseFormat)
            #expect(error?.message.contains("the keys 'error', 'status'") == true, "\(error?.message ?? "")")
            messages.append(error?.message ?? "")
            #expect(try store.exportJSON(entity: "Customer") == before)
            let empty = try await store.populate(try JSONReader().read(#"{"data": null}"#), entity: "Customer")
            #expect(empty.records.isEmpty && empty.debugger.contains(.emptyResultSet))
        }
        #expect(messages[0] == messages[1])
    }

    @Test func aPageAnsweringAnErrorEnvelopeFailsAndDeletesNoOrphan() async throws {
        let directory = try TemporaryDirectory()
        let loopback = try LoopbackHTTPServer()
        loopback.route("/p1", .json(#"{"data": [{"id": "cus_1", "email": "a@x"}], "next": "/p2"}"#))
        loopback.route("/p2", .json(Self.envelope))
        for store in try Self.stores(directory) {
            store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Customer")
            _ = try await store.populate(
                try JSONReader().read(#"{"data": [{"id": "cus_old", "email": "o@x"}]}"#), entity: "Customer")
            var options = PagingOptions(pagination: .nextURL(keyPath: "next"))
            options.request.population.deleteOrphans = .all
            var pages = 0
            let error = await Self.failure {
                for try await _ in store.pages(entity: "Customer", urn: "p1", options: options) { pages += 1 }
            }
            #expect(error?.code == .invalidResponseFormat, "\(String(describing: error))")
            #expect(pages == 1)
            #expect(try store.fetchOne("Customer", primaryKey: "cus_1") != nil)
            #expect(try store.fetchOne("Customer", primaryKey: "cus_old") != nil, "no orphan is deleted")
        }
    }

    @Test func aRefreshReadsTheDetailKeyPathAndNeverReturnsAStaleSnapshot() async throws {
        let directory = try TemporaryDirectory()
        let loopback = try LoopbackHTTPServer()
        loopback.route("/customers", .json(#"{"data": [{"id": "cus_1", "email": "old@x"}]}"#))
        for store in try Self.stores(directory) {
            store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Customer")
            store.register(recordClass: DetailCustomer.self)
            let customer = try #require(try await DetailCustomer.startRequest(urn: "customers", in: store).first)
            loopback.route("/customers/cus_1", .json(#"{"id": "cus_1", "email": "new@x"}"#))
            let fresh = try await customer.refresh(in: store)
            #expect(fresh["email"] as String? == "new@x")
            loopback.route("/customers/cus_1", .json(#"{"id": "cus_9", "email": "other@x"}"#))
            let error = await Self.failure { _ = try await fresh.refresh(in: store) }
            #expect(error?.code == .notFound, "\(String(describing: error))")
        }
    }

    @Test func aRecordLackingANonOptionalValueIsNamed() async throws {
        let directory = try TemporaryDirectory()
        for store in try Self.stores(directory) {
            let error = await Self.failure {
                _ = try await store.populate(
                    try JSONReader().read(#"{"data": [{"id": "cus_1", "email": null}]}"#), entity: "Customer")
            }
            #expect(
                error?.message.contains("Customer 'cus_1': email is null, and it is not optional") == true,
                "\(error?.message ?? "")")
            #expect(try store.count("Customer") == 0)
        }
    }
}

/// A customer whose detail URN is `customers/<id>`.
final class DetailCustomer: Record {
    override class var entityName: String { "Customer" }
    override var recordDetailURN: String? { (self["id"] as String?).map { "customers/\($0)" } }
}
