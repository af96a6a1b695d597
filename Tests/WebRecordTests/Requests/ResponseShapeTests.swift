import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// Responses whose shape is not what the schema declares (DESIGN §3.1), through the request
/// API against a loopback server: a missing key path fails one request, a page, a batch, and a
/// detail request; a detail response is read where the schema says; the errors say what was
/// wrong and quote an excerpt.
@Suite(.measuresTime) struct ResponseShapeTests {
    /// Customers listed at `data`, each detail answered as the bare object (as Stripe's are);
    /// accounts listed at `data` with no detail key path declared.
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
                "email": { "type": "string", "optional": false },
                "name": { "type": "string" }
              }
            },
            "Account": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": { "id": { "type": "string" }, "name": { "type": "string" } }
            }
          }
        }
        """

    let directory: TemporaryDirectory
    let store: RecordStore
    let loopback: LoopbackHTTPServer

    init() throws {
        directory = try TemporaryDirectory()
        store = try RecordStore(
            path: directory.path("shapes.sqlite"), schema: Schema(json: Self.schemaJSON, fileName: "Shapes.json"))
        loopback = try LoopbackHTTPServer()
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Customer")
        store.register(HTTPServer(baseURL: loopback.baseURL), forEntity: "Account")
        store.register(recordClass: ShapeCustomer.self)
        store.register(recordClass: ShapeAccount.self)
    }

    static func customers(_ ids: [Int], name: String = "n") -> String {
        JSONValue.object([
            "data": .array(
                ids.map { ["id": .string("cus_\($0)"), "email": .string("c\($0)@example.com"), "name": .string(name)] })
        ]).serialized()
    }

    static let envelope = #"{"error": {"message": "rate limited", "type": "api_error"}, "status": 429}"#

    func collect(_ pages: PageSequence<Record>) async throws -> [Page<Record>] {
        var result: [Page<Record>] = []
        for try await page in pages { result.append(page) }
        return result
    }

    // MARK: - A missing key path

    @Test func aRequestAnsweredWithAnErrorEnvelopeFailsNamingTheKeyPathAndTheKeys() async throws {
        loopback.route("/customers", [.json(Self.customers([1])), .json(Self.envelope)])
        _ = try await store.startRequest(entity: "Customer", urn: "customers")
        let before = try store.exportJSON(entity: "Customer")
        let failure = await RequestSupport.failure {
            _ = try await store.startRequest(entity: "Customer", urn: "customers")
        }
        let error = try #require(failure)
        #expect(error.code == .invalidResponseFormat)
        #expect(error.keyPath == "data")
        #expect(error.message.contains("no 'data'"), "\(error.message)")
        #expect(error.message.contains("the keys 'error', 'status'"), "\(error.message)")
        // An excerpt of the body, as an HTTP error quotes one.
        #expect(error.message.contains(#""message":"rate limited""#), "\(error.message)")
        #expect(try store.exportJSON(entity: "Customer") == before)
    }

    @Test(arguments: [#"{"data": null}"#, #"{"data": []}"#])
    func nullOrAnEmptyListAtTheKeyPathIsStillAnEmptyResult(body: String) async throws {
        loopback.route("/customers", .json(body))
        let result = try await store.startRequest(entity: "Customer", urn: "customers")
        #expect(result.records.isEmpty)
        #expect(result.debugger.contains(.emptyResultSet))
    }

    @Test func aPageAnsweredWithAnErrorEnvelopeFailsThePagingKeepsEarlierPagesAndDeletesNoOrphan() async throws {
        _ = try await store.populate(
            try JSONReader().read(#"{"data": [{"id": "cus_old", "email": "old@example.com"}]}"#), entity: "Customer")
        loopback.route("/p1", .json(#"{"data": [{"id": "cus_1", "email": "a@x"}], "next": "/p2"}"#))
        loopback.route("/p2", .json(Self.envelope))
        loopback.route("/p3", .json(#"{"data": [{"id": "cus_3", "email": "c@x"}], "next": "/p4"}"#))
        var options = PagingOptions(pagination: .nextURL(keyPath: "next"))
        options.request.population.deleteOrphans = .all
        var delivered: [Page<Record>] = []
        let failure = await RequestSupport.failure {
            for try await page in store.pages(entity: "Customer", urn: "p1", options: options) {
                delivered.append(page)
            }
        }
        let error = try #require(failure, "page 2 of 4 answering an error envelope is not the last page")
        #expect(error.code == .invalidResponseFormat)
        #expect(error.message.contains("no 'data'") && error.message.contains("page 2"), "\(error.message)")
        #expect(delivered.count == 1)
        #expect(delivered.allSatisfy { $0.end == nil && $0.orphansDeleted.isEmpty })
        #expect(loopback.requests(to: "/p3").isEmpty)
        #expect(try store.fetchOne("Customer", primaryKey: "cus_1") != nil, "page 1 stays")
        #expect(try store.fetchOne("Customer", primaryKey: "cus_old") != nil, "no orphan is deleted")
    }

    @Test func aBatchRequestAnsweredWithAnErrorEnvelopeFailsAloneAndTheOthersSucceed() async throws {
        loopback.route("/good", .json(Self.customers([1, 2])))
        loopback.route("/bad", .json(Self.envelope))
        let results = await store.startBatch([
            BatchRequest(entity: "Customer", urn: "good"), BatchRequest(entity: "Customer", urn: "bad"),
        ])
        #expect((try? results[0].get())?.records.count == 2)
        guard case .failure(let error) = results[1] else {
            Issue.record("the error envelope was taken for an empty result")
            return
        }
        #expect(error.code == .invalidResponseFormat && error.message.contains("no 'data'"), "\(error.message)")
        #expect(try store.count("Customer") == 2)
    }

    // MARK: - Detail requests

    @Test func aDetailResponseIsReadAtTheSchemasDetailKeyPath() async throws {
        loopback.route("/customers", .json(Self.customers([1, 2])))
        let customers = try await ShapeCustomer.startRequest(urn: "customers", in: store)
        let first = try #require(customers.first)
        loopback.route("/customers/cus_1", .json(#"{"id": "cus_1", "email": "new@example.com", "name": "New"}"#))
        let fresh = try await first.refresh(in: store)
        #expect(fresh.email == "new@example.com")
        #expect(fresh.rowID == first.rowID)
        #expect(try store.count("Customer") == 2)
    }

    @Test func aDetailResponseThatMissesTheKeyPathFailsAndNeverReturnsTheOldSnapshot() async throws {
        loopback.route("/accounts", .json(#"{"data": [{"id": "acc_1", "name": "Old"}]}"#))
        let account = try #require(try await ShapeAccount.startRequest(urn: "accounts", in: store).first)
        // The detail endpoint answers the bare object; the schema declares no detail key path.
        loopback.route("/accounts/acc_1", .json(#"{"id": "acc_1", "name": "New"}"#))
        let failure = await RequestSupport.failure { _ = try await account.refresh(in: store) }
        let error = try #require(failure, "refresh returned the old snapshot as if refreshed")
        #expect(error.code == .invalidResponseFormat)
        #expect(error.message.contains("no 'data'") && error.message.contains("'id', 'name'"), "\(error.message)")
        #expect(try store.fetchOne("Account", primaryKey: "acc_1")?["name"] as String? == "Old")
        // Said per request, it is read there.
        var options = RequestOptions()
        options.population.keyPath = ""
        let fresh = try await account.refresh(in: store, options: options)
        #expect(fresh.name == "New")
    }

    @Test(arguments: [#"{"data": []}"#, #"{"data": null}"#, #"{"data": [{"id": "acc_2", "name": "Other"}]}"#])
    func aDetailResponseThatHoldsNotTheRecordFailsWithNotFound(body: String) async throws {
        loopback.route("/accounts", .json(#"{"data": [{"id": "acc_1", "name": "Old"}]}"#))
        let account = try #require(try await ShapeAccount.startRequest(urn: "accounts", in: store).first)
        loopback.route("/accounts/acc_1", .json(body))
        let refreshed = await RequestSupport.failure { _ = try await account.refresh(in: store) }
        let error = try #require(refreshed, "refresh returned the old snapshot as if refreshed")
        #expect(error.code == .notFound)
        #expect(error.message.contains("acc_1") && error.message.contains("not refreshed"), "\(error.message)")
        #expect(error.debugger != nil)
        let detailed = await RequestSupport.failure { _ = try await account.startDetailRequest(in: store) }
        #expect(detailed?.code == .notFound)
        #expect(try store.fetchOne("Account", primaryKey: "acc_1")?["name"] as String? == "Old")
    }

    // MARK: - Messages

    @Test func aResponseWhoseOnlyRecordLacksANonOptionalValueNamesTheRecordTheAttributeAndTheKeyPath() async throws {
        loopback.route("/customers", .json(#"{"data": [{"id": "cus_1", "email": null}]}"#))
        let failure = await RequestSupport.failure {
            _ = try await store.startRequest(entity: "Customer", urn: "customers")
        }
        let error = try #require(failure)
        #expect(error.code == .invalidResponseFormat)
        #expect(error.message.contains("Customer 'cus_1': email is null, and it is not optional"), "\(error.message)")
        #expect(!error.message.contains("each lacks"), "\(error.message)")
        loopback.route("/customers", .json(#"{"data": [{"id": "cus_1"}, {"id": "cus_2"}]}"#))
        let missing = await RequestSupport.failure {
            _ = try await store.startRequest(entity: "Customer", urn: "customers")
        }
        #expect(
            missing?.message.contains("the first: Customer 'cus_1': email has no value (no 'email' in the record)")
                == true, "\(missing?.message ?? "")")
        #expect(try store.count("Customer") == 0)
    }

    @Test func aFailedPagesMessageQuotesAShortExcerptOfItsParametersWithSecretsRedacted() async throws {
        let query = "query { customers(first: 50) { " + String(repeating: "id email name address ", count: 70) + "} }"
        #expect(query.count > 1_400)
        loopback.route(
            "/graphql", method: "POST",
            [.json(#"{"data": [{"id": "cus_1", "email": "a@x"}], "cursor": "c2"}"#), .status(500)])
        let options = PagingOptions(pagination: .cursor(keyPath: "cursor", parameter: "after"))
        var request = options
        request.request.method = "POST"
        let failure = await RequestSupport.failure {
            for try await _ in store.pages(
                entity: "Customer", urn: "graphql", data: ["query": .string(query), "api_key": "k3y-SECRET"],
                options: request)
            {}
        }
        let error = try #require(failure)
        #expect(error.message.contains("page 2"), "\(error.message)")
        #expect(!error.message.contains(query), "the whole query is not quoted")
        #expect(error.message.count < 700, "\(error.message.count) characters: \(error.message)")
        #expect(!error.message.contains("k3y-SECRET"), "\(error.message)")
    }
}

/// A customer whose detail URN is `customers/<id>`.
final class ShapeCustomer: Record {
    override class var entityName: String { "Customer" }
    var email: String? { self["email"] }
    override var recordDetailURN: String? { (self["id"] as String?).map { "customers/\($0)" } }
}

/// An account whose detail URN is `accounts/<id>`.
final class ShapeAccount: Record {
    override class var entityName: String { "Account" }
    var name: String? { self["name"] }
    override var recordDetailURN: String? { (self["id"] as String?).map { "accounts/\($0)" } }
}
