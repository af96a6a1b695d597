// Generated from Docs/Requests.md by python3 Tests/DocSnippetsTests/generate.py: do not edit.
// Edit the document, then run that command again. The documents' code keeps their layout:
// swift-format-ignore-file

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebRecord

// Docs/Requests.md, block 1
extension DocSnippetContext {
    func requests1() async throws {
        let posts = try await Post.startRequest(urn: "stream/0/posts/stream/global", in: store)
        // Every name the block declares is used, as a reader would go on to use it.
        _ = posts
    }
}

// Docs/Requests.md, block 2
extension DocSnippetContext {
    func requests2() async throws {
        let posts: [Post] = try await Post.startRequest(urn: "stream/0/posts/stream/global",
                                                        data: ["count": 20],
                                                        in: store)
        // Every name the block declares is used, as a reader would go on to use it.
        _ = posts
    }
}

// Docs/Requests.md, block 3
extension DocSnippetContext {
    func requests3() async throws {
        let result = try await store.startRequest(entity: "Post", urn: "stream/0/posts/stream/global")
        let posts: [Record] = result.records
        // Every name the block declares is used, as a reader would go on to use it.
        _ = result
        _ = posts
    }
}

// Docs/Requests.md, block 4
extension DocSnippetContext {
    func requests4() async throws {
        let result = try await Post.startRequestForResult(urn: "stream/0/posts/stream/global", in: store)
        print(result.records.first?.text ?? "", result.changes.inserted)   // no cast
        // Every name the block declares is used, as a reader would go on to use it.
        _ = result
    }
}

// Docs/Requests.md, block 5
extension DocSnippetContext {
    func requests5() async throws {
        var options = RequestOptions()
        options.headers["Authorization"] = "token \(token)"
        let result = try await store.startRequest(entity: "Post", urn: "posts?access_token=\(key)", options: options)
        print(result.request)
        // ServerRequest(urn: "posts?access_token=<redacted>", ..., headers: ["Authorization": "<redacted>"], ...)
        // Every name the block declares is used, as a reader would go on to use it.
        _ = options
        _ = result
    }
}

// Docs/Requests.md, block 6
extension DocSnippetContext {
    func requests6() async throws {
        var options = RequestOptions()
        options.population.deleteOrphans = .all            // PopulationOptions: key path, injection, orphans...
        options.server = try JSONFileServer(root: responses) // this request only
        options.domain = "timeline"                        // for cancelRequests(inDomain:)
        options.headers["Authorization"] = "Bearer \(userToken)"
        options.method = "POST"
        options.timeout = 10                               // seconds, per attempt
        options.customResponse = { response in             // MMRecord's custom response block
            response.value(atKeyPath: "meta.max_id")?.stringValue
        }
        let result = try await store.startRequest(entity: "Post", urn: "posts", options: options)
        let maxID = result.customResponse as? String
        // Every name the block declares is used, as a reader would go on to use it.
        _ = options
        _ = result
        _ = maxID
    }
}

// Docs/Requests.md, block 7
extension DocSnippetContext {
    func requests7() async throws {
        var options = RequestOptions()
        options.progress = { progress in
            let total = progress.expectedBytes.map { " of \($0)" } ?? ""
            print("\(progress.phase): \(progress.bytesRead)\(total) bytes, \(progress.recordsPopulated) records")
        }
        let result = try await store.startRequest(entity: "Post", urn: "stream/0/posts/stream/global", options: options)

        // The same for a response parsed already: PopulationOptions has the callback too.
        var population = PopulationOptions()
        population.progress = { progress in print(progress.phase, progress.recordsPopulated, progress.totalRecords ?? 0) }
        _ = try await store.populate(try JSONReader().read(data), entity: "Post", options: population)
        // Every name the block declares is used, as a reader would go on to use it.
        _ = options
        _ = result
        _ = population
    }
}

// Docs/Requests.md, block 8
extension DocSnippetContext {
    func requests8() async throws {
        do {
            let posts = try await Post.startRequest(urn: "stream/0/posts/stream/global", in: store)
            show(posts)
        } catch {
            print(error.code, error.message)                // error is a WebRecordError
            print(error.debugger ?? "no debugger")          // every error, one per line
            if error.code == .serverError, error.httpStatus == 401 { signIn() }
        }
    }
}

// Docs/Requests.md, block 9
extension DocSnippetContext {
    func requests9() async throws {
        for try await update in store.startRequestFetchingFirst(entity: "Post", urn: "stream/0/posts/stream/global") {
            switch update {
            case .local(let cached):  show(cached)           // at once, from the store
            case .remote(let result): show(result.records)  // once the server has answered and the store is updated
            }
        }
    }
}

// Docs/Requests.md, block 10
extension DocSnippetContext {
    func requests10() throws {
        let updates = Post.startRequestFetchingFirst(urn: "posts", in: store) { store in
            try store.fetch("Post", orderBy: [.descending("date")], limit: 20)
        }
        // Every name the block declares is used, as a reader would go on to use it.
        _ = updates
    }
}

// Docs/Requests.md, block 11
extension DocSnippetContext {
    func requests11() async throws {
        final class Venue: Record {
            override var recordDetailURN: String? { (self["id"] as String?).map { "venues/\($0)" } }
        }

        let fresh = try await venue.refresh(in: store)               // a new snapshot of the same row
        let result = try await venue.startDetailRequest(in: store)   // the whole RequestResult<Venue>
        // Every name the block declares is used, as a reader would go on to use it.
        _ = fresh
        _ = result
    }
}

// Docs/Requests.md, block 12
extension DocSnippetContext {
    func requests12() throws {
        var configuration = RecordStore.Configuration()
        configuration.cancellation = RequestCancellation()     // this store's domains only
        let drafts = try RecordStore(path: "drafts.sqlite", schema: schema, configuration: configuration)
        drafts.cancelRequests(inDomain: "timeline")             // reaches no other store's requests
        // Every name the block declares is used, as a reader would go on to use it.
        _ = configuration
        _ = drafts
    }
}

// Docs/Requests.md, block 13
extension DocSnippetContext {
    func requests13() throws {
        Post.startRequest(urn: "stream/0/posts/stream/global", in: store,
                          domain: "timeline",
                          callbackQueue: .main,
                          resultBlock: { posts in show(posts) },
                          failureBlock: { error in print(error.debugger ?? "no debugger") })

        store.startRequest(entity: "Post", urn: "posts", callbackQueue: queue,
                           resultBlock: { result in show(result.records) },
                           failureBlock: { failure in print(failure) })
    }
}

// Docs/Requests.md, block 14
extension DocSnippetContext {
    func requests14() async throws {
        var options = PagingOptions(pagination: .cursor(keyPath: "meta.min_id", parameter: "before_id"))
        options.maximumPages = 50
        options.request.population.deleteOrphans = .all       // once, after the last page
        for try await page in Post.pages(urn: "stream/0/posts/stream/global", in: store, options: options) {
            print("page \(page.index): \(page.records.count) posts, \(page.progress.recordsPopulated) so far")
        }
        // Every name the block declares is used, as a reader would go on to use it.
        _ = options
    }
}

// Docs/Requests.md, block 15
extension DocSnippetContext {
    func requests15() async throws {
        let (posts, user) = await store.startBatch(
            BatchRequest(Post.self, urn: "stream/0/posts/stream/global"),
            BatchRequest(User.self, urn: "users/2"))
        let first: Post? = try posts.get().records.first    // no cast
        let name = try user.get().records.first?.name
        // Every name the block declares is used, as a reader would go on to use it.
        _ = first
        _ = name
    }
}
