import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// What a next link or cursor may be: a string, a JSON:API link object's `href`, or null on the
/// last page. Anything else fails the paged request, naming the key path, and is never taken for
/// the last page.
@Suite(.measuresTime) struct NextLinkValueTests {
    let store: RecordStore
    let directory: TemporaryDirectory
    let loopback: LoopbackHTTPServer

    init() throws {
        (store, directory, loopback) = try PagingRules.makeLoopbackStore()
    }

    func pages(_ pagination: Pagination) async throws -> [Page<Record>] {
        try await PagingRules.collect(
            store.pages(entity: "Item", urn: "list", options: PagingOptions(pagination: pagination)))
    }

    @Test func aLinkObjectsHrefIsFollowed() async throws {
        loopback.route("/list", .json(PagingBodies.body([1], meta: ["next": ["href": "/list2"]])))
        loopback.route("/list2", .json(PagingBodies.body([2], meta: ["next": ["href": .null]])))
        let pages = try await pages(.nextURL(keyPath: "meta.next"))
        #expect(pages.count == 2)
        #expect(pages.last?.end == .noNextPage)
        #expect(try PagingRules.storedIDs(in: store) == [1, 2])
    }

    @Test(arguments: [
        ("a number", JSONValue.integer(2)), ("a boolean", JSONValue.bool(true)),
        ("an array", JSONValue.array(["/list2"])),
        ("an object without href", JSONValue.object(["url": "/list2"])),
        ("a link object with a numeric href", JSONValue.object(["href": 2])),
    ])
    func anythingElseFailsNamingTheKeyPath(_ kind: String, _ next: JSONValue) async throws {
        loopback.route("/list", .json(PagingBodies.body([1], meta: ["next": next])))
        var options = PagingOptions(pagination: .nextURL(keyPath: "meta.next"))
        options.request.population.deleteOrphans = .all
        do {
            _ = try await PagingRules.collect(store.pages(entity: "Item", urn: "list", options: options))
            Issue.record("\(kind) at meta.next should fail the paged request")
        } catch let error as WebRecordError {
            #expect(error.code == .invalidResponseFormat, "\(kind)")
            #expect(error.keyPath == "meta.next", "\(kind)")
            #expect(error.message.contains("'meta.next'"), "\(kind): \(error.message)")
        } catch {
            Issue.record("\(kind): \(error)")
        }
        // The page was populated; nothing was deleted as an orphan of a run that did not end.
        #expect(try PagingRules.storedIDs(in: store) == [1])
        #expect(loopback.requests.count == 1)
    }

    @Test func aCursorThatIsNeitherTextNorANumberFails() async throws {
        loopback.route("/list", .json(PagingBodies.body([1], meta: ["cursor": ["at": 5]])))
        do {
            _ = try await pages(.cursor(keyPath: "meta.cursor", parameter: "after"))
            Issue.record("an object cursor should fail the paged request")
        } catch let error as WebRecordError {
            #expect(error.code == .invalidResponseFormat)
            #expect(error.keyPath == "meta.cursor")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func nullAnEmptyStringAndAnAbsentMemberEndPaging() async throws {
        // Null and "" state the end; an absent member does not (the paginator may look in the
        // wrong place), and keeps orphans.
        let cases: [(JSONObject, PagingEnd)] = [
            (["next": .null], .noNextPage), (["next": ""], .noNextPage), ([:], .nextPageNotFound),
        ]
        for (index, (meta, end)) in cases.enumerated() {
            loopback.route("/list", .json(PagingBodies.body([index + 1], meta: meta)))
            let pages = try await pages(.nextURL(keyPath: "meta.next"))
            #expect(pages.count == 1)
            #expect(pages.first?.end == end)
        }
    }
}
