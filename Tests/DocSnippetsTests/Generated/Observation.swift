// Generated from Docs/Observation.md by python3 Tests/DocSnippetsTests/generate.py: do not edit.
// Edit the document, then run that command again. The documents' code keeps their layout:
// swift-format-ignore-file

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebRecord

// Docs/Observation.md, block 1
extension DocSnippetContext {
    func observation1() async throws {
        for try await results in Post.observe(in: store, orderBy: [.descending("date")]) {
            if let changes = results.changes {
                print("\(changes.insertions.count) new, \(changes.deletions.count) gone")
            }
            show(results.records)          // [Post], in date order
        }
    }
}

// Docs/Observation.md, block 2
extension DocSnippetContext {
    func observation2() async throws {
        let watcher = Task { [store] in
            for try await results in store.observe("Post", where: "text LIKE ?", arguments: ["%swift%"]) {
                print("\(results.records.count) posts mention Swift")
            }
        }
        // later
        watcher.cancel()
        // Every name the block declares is used, as a reader would go on to use it.
        _ = watcher
    }
}

// Docs/Observation.md, block 3
extension DocSnippetContext {
    func observation3() throws {
        let token = Post.observe(in: store, orderBy: [.descending("date")]).start(on: queue) { results in
            show(results.records)
        }
        // later
        token.invalidate()
        // Every name the block declares is used, as a reader would go on to use it.
        _ = token
    }
}

// Docs/Observation.md, block 4
#if canImport(UIKit)
    import UIKit

    final class PostsController: UITableViewController {
        var posts: [Post] = []
        var token: ObservationToken?

        func observe(_ store: RecordStore) {
            token = Post.observe(in: store, orderBy: [.descending("date")]).start { [weak self] results in
                MainActor.assumeIsolated { self?.apply(results) }
            }
        }

        func apply(_ results: ObservedResults<Post>) {
            guard let changes = results.changes else {
                posts = results.records
                tableView.reloadData()
                return
            }
            tableView.performBatchUpdates {
                posts = results.records
                tableView.deleteRows(at: changes.deletions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
                tableView.insertRows(at: changes.insertions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
                for move in changes.moves {
                    tableView.moveRow(at: IndexPath(row: move.from, section: 0), to: IndexPath(row: move.to, section: 0))
                }
            }
            // Modified rows are reloaded after the batch, at their new indices.
            tableView.reloadRows(at: changes.modifications.map { IndexPath(row: $0.new, section: 0) }, with: .none)
        }
    }
#endif

// Docs/Observation.md, block 5
#if canImport(SwiftUI)
    import SwiftUI

    struct PostList: View {
        @State var posts: ObservedRecords<Post>

        init(store: RecordStore) {
            _posts = State(initialValue: ObservedRecords(Post.observe(in: store, orderBy: [.descending("date")])))
        }

        var body: some View {
            List(posts.records, id: \.rowID) { post in
                Text(post.text ?? "")
            }
        }
    }
#endif
