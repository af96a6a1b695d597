import Foundation
import Testing
import WebRecordTesting

@testable import WebRecord

/// A record that takes a one-to-one's partner from a stored record in one part of a response,
/// and lets go of it in a later one (decision 7). One batch wires only the latest occurrence of
/// each record's link: a post's own `pinned` given again supersedes the earlier one, so the
/// stored holder keeps the partner, while a claim made through the partner's link (the user's
/// `pin`) or by another record stands. A stream whose batches part those occurrences is read
/// again whole (Docs/Population.md, "Read again whole"), and ends as the whole response. The
/// schema is ``AdversarialIncomingLinksTests``'s: a post's one-to-one `pinned` (the user's `pin`),
/// kept in the post's row.
@Suite struct StreamedOneToOneLetGoTests {
    typealias A = AdversarialIncomingLinksTests

    static let pinnedToSeven = #"[{"id": 1, "pinned": {"id": 7, "name": "s"}}]"#

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let earlier: String
        let list: String
        /// Each post's links as they end (``AdversarialIncomingLinksTests/postLinks(of:after:options:)``).
        let links: [String]
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(
            name: "taken by key, then another", earlier: pinnedToSeven,
            list: #"[{"id": 2, "pinned": 7}, {"id": 2, "pinned": {"id": 8, "name": "n"}}]"#,
            links: ["1: user=- reviewer=- pinned=7", "2: user=- reviewer=- pinned=8"]),
        Case(
            name: "taken as an object, then null", earlier: pinnedToSeven,
            list: #"[{"id": 2, "pinned": {"id": 7, "name": "s"}}, {"id": 2, "pinned": null}]"#,
            links: ["1: user=- reviewer=- pinned=7", "2: user=- reviewer=- pinned=-"]),
        Case(
            name: "taken through the partner's link, which stands", earlier: pinnedToSeven,
            list: #"[{"id": 2, "user": {"id": 7, "name": "s", "pin": 2}}, {"id": 2, "pinned": 8}]"#,
            links: ["1: user=- reviewer=- pinned=-", "2: user=7 reviewer=- pinned=8"]),
        Case(
            name: "a third post claims it in between", earlier: pinnedToSeven,
            list: #"[{"id": 2, "pinned": 7}, {"id": 3, "pinned": 7}, {"id": 2, "pinned": null}]"#,
            links: [
                "1: user=- reviewer=- pinned=-", "2: user=- reviewer=- pinned=-", "3: user=- reviewer=- pinned=7",
            ]),
        Case(
            name: "the stored holder named in between, without the link", earlier: pinnedToSeven,
            list: #"[{"id": 2, "pinned": 7}, {"id": 1, "title": "t"}, {"id": 2, "pinned": null}]"#,
            links: ["1: user=- reviewer=- pinned=7", "2: user=- reviewer=- pinned=-"]),
        Case(
            name: "the stored holder set to null in between", earlier: pinnedToSeven,
            list: #"[{"id": 2, "pinned": 7}, {"id": 1, "pinned": null}, {"id": 2, "pinned": null}]"#,
            links: ["1: user=- reviewer=- pinned=-", "2: user=- reviewer=- pinned=-"]),
        Case(
            name: "the stored holder given another in between", earlier: pinnedToSeven,
            list: #"[{"id": 2, "pinned": 7}, {"id": 1, "pinned": {"id": 9, "name": "x"}}, {"id": 2, "pinned": null}]"#,
            links: ["1: user=- reviewer=- pinned=9", "2: user=- reviewer=- pinned=-"]),
        Case(
            name: "taken back by the stored holder in between", earlier: pinnedToSeven,
            list: #"[{"id": 2, "pinned": 7}, {"id": 1, "pinned": 7}, {"id": 2, "pinned": null}]"#,
            links: ["1: user=- reviewer=- pinned=7", "2: user=- reviewer=- pinned=-"]),
        Case(
            name: "let go, then taken again", earlier: pinnedToSeven,
            list: #"[{"id": 2, "pinned": 7}, {"id": 2, "pinned": null}, {"id": 2, "pinned": 7}]"#,
            links: ["1: user=- reviewer=- pinned=-", "2: user=- reviewer=- pinned=7"]),
    ])
    func endsAsTheWholeResponse(_ example: Case) async throws {
        let links = try await A.postLinks(of: example.list, after: example.earlier)
        #expect(links == example.links, "\(links)")
        // Streamed, at every batch size: the same rows, or, from a stream that cannot be read
        // again, refused with nothing written, and the same rows once read again.
        let whole = try await A.outcome(of: example.list, after: example.earlier, batchBytes: nil)
        let before = try await A.outcome(of: "[]", after: example.earlier, batchBytes: nil)
        #expect(whole.failure == nil, "\(whole)")
        for batchBytes in A.batchSizes {
            let streamed = try await A.outcome(of: example.list, after: example.earlier, batchBytes: batchBytes)
            guard let failure = streamed.failure else {
                #expect(streamed == whole, "batches of \(batchBytes) bytes:\n\(streamed)\nwhole:\n\(whole)")
                continue
            }
            #expect(failure.contains("lets go of it in a later one"), "\(failure)")
            #expect(streamed.rows == before.rows, "batches of \(batchBytes) bytes: a refused stream wrote")
            let again = try await A.outcome(
                of: example.list, after: example.earlier, batchBytes: batchBytes, reopens: true)
            #expect(again == whole, "batches of \(batchBytes) bytes, read again:\n\(again)\nwhole:\n\(whole)")
        }
    }
}
