import Foundation
import TestSupport
import Testing
import WebRecord
import WebRecordTesting

/// Concurrent requests into one store file, over real HTTP.
@Suite(.measuresTime) struct ConcurrentRequestTests {
    @Test func eightConcurrentRequestsIntoOneFileStoreAllSucceedConsistently() async throws {
        let (store, directory) = try RequestSupport.makeStore()
        let loopback = try LoopbackHTTPServer()
        store.register(recordClass: FeedPost.self)
        store.register(recordClass: FeedUser.self)
        store.register(HTTPServer(baseURL: loopback.baseURL), for: FeedRecord.self)
        // Page n holds posts 10n ..< 10n + 15: each overlaps the next by five posts, and all
        // share the same five users.
        for page in 0..<8 {
            let ids = Array((page * 10)..<(page * 10 + 15))
            loopback.route("/pages/\(page)", .json(RequestSupport.postsText(ids, users: 5), delay: 0.05))
        }

        // Each task reads its own records and hands back their keys (records are not Sendable).
        let results = try await withThrowingTaskGroup(of: (Int, [Int?]).self) { group in
            for page in 0..<8 {
                group.addTask { (page, try await FeedPost.startRequest(urn: "pages/\(page)", in: store).map(\.id)) }
            }
            var results: [Int: [Int?]] = [:]
            for try await (page, ids) in group { results[page] = ids }
            return results
        }

        #expect(results.count == 8)
        for page in 0..<8 {
            #expect(results[page] == Array((page * 10)..<(page * 10 + 15)).map { Optional($0) })
        }
        let allIDs = Set((0..<8).flatMap { ($0 * 10)..<($0 * 10 + 15) })
        #expect(try store.count("Post") == allIDs.count)
        #expect(try store.count("User") == 5)
        let posts = try store.fetch(FeedPost.self, orderBy: [.ascending("id")])
        #expect(posts.map(\.id) == allIDs.sorted().map { Optional($0) })
        #expect(posts.allSatisfy { $0.user?.name == "User \(($0.id ?? -1) % 5)" })
        let users = try store.fetch(FeedUser.self)
        #expect(users.map { $0.relatedRecords("posts", as: Record.self).count }.reduce(0, +) == allIDs.count)
        #expect(loopback.requests.count == 8)
        _ = directory
    }
}
