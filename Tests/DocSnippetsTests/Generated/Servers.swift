// Generated from Docs/Servers.md by python3 Tests/DocSnippetsTests/generate.py: do not edit.
// Edit the document, then run that command again. The documents' code keeps their layout:
// swift-format-ignore-file

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebRecord
import Testing
import WebRecordTesting

// Docs/Servers.md, block 1
extension DocSnippetContext {
    func servers1() async throws {
        // 1. The server: where the API is, and how to authenticate.
        final class ADNServer: HTTPServer, @unchecked Sendable {
            init(token: String) {
                super.init(baseURL: URL(string: "https://api.app.net/")!,
                           headers: ["Authorization": "Bearer \(token)"])
            }
        }

        // 2. Record classes with typed accessors (optional; see Records.md).
        class ADNRecord: Record {}

        final class Post: ADNRecord {
            var text: String? { self["text"] }
            var user: User? { related("user") }
        }

        final class User: ADNRecord {
            var name: String? { self["name"] }
        }

        // 3. Register the classes and the server, then request.
        let store = try RecordStore(path: "appnet.sqlite",
                                    schema: Schema(contentsOf: URL(fileURLWithPath: "Schemas/AppNet.json")))
        store.register(recordClass: Post.self)
        store.register(recordClass: User.self)
        store.register(ADNServer(token: token), for: ADNRecord.self)   // covers Post and User

        let posts = try await Post.startRequest(urn: "stream/0/posts/stream/global", in: store)
        print(posts.first?.text ?? "", posts.first?.user?.name ?? "")
        // Every name the block declares is used, as a reader would go on to use it.
        _ = store
        _ = posts
    }
}

// Docs/Servers.md, block 2
extension DocSnippetContext {
    func servers2() throws {
        final class EnvelopeServer: HTTPServer, @unchecked Sendable {
            override func decodeResponse(data: Data, response: HTTPURLResponse,
                                         request: ServerRequest) throws -> ServerResponse {
                var decoded = try super.decodeResponse(data: data, response: response, request: request)
                guard decoded.body["ok"] == .bool(true) else {
                    throw WebRecordError(.serverError, "API error: \(decoded.body["reason"]?.stringValue ?? "unknown")")
                }
                decoded.body = decoded.body["result"] ?? .null
                return decoded
            }
        }
    }
}

// Docs/Servers.md, block 3
extension DocSnippetContext {
    func servers3() throws {
        final class SignedServer: HTTPServer, @unchecked Sendable {
            let secret: String
            init(secret: String) {
                self.secret = secret
                super.init(baseURL: URL(string: "https://api.example.com/v2/")!)
            }
            override func urlRequest(for request: ServerRequest) throws -> URLRequest {
                var urlRequest = try super.urlRequest(for: request)
                urlRequest.setValue(signature(of: urlRequest, with: secret), forHTTPHeaderField: "X-Signature")
                return urlRequest
            }
        }
    }
}

// Docs/Servers.md, block 4
enum Servers4 {
    public protocol Server: Sendable {
        func response(for request: ServerRequest) async throws -> ServerResponse
        func pageManager(for response: ServerResponse, of request: ServerRequest) -> (any PageManager)?  // default: nil
    }
}

// Docs/Servers.md, block 5
extension DocSnippetContext {
    func servers5() throws {
        let server = HTTPServer(baseURL: URL(string: "https://api.example.com/v1/")!,
                                configuration: .ephemeral,   // a URLSessionConfiguration
                                headers: [:],                // sent with every request
                                timeout: 60,                 // seconds, per attempt
                                maxRetries: 2,               // retries of a 429 or 503
                                retryDelay: 0.5,             // seconds, doubled on each retry
                                maximumRetryDelay: 30,       // seconds
                                maximumBodySize: HTTPServer.defaultMaximumBodySize)  // 256 MiB, decoded
        // Every name the block declares is used, as a reader would go on to use it.
        _ = server
    }
}

// Docs/Servers.md, block 6
extension DocSnippetContext {
    func servers6() throws {
        Redaction.secretNames.insert("key")
    }
}

// Docs/Servers.md, block 7
extension DocSnippetContext {
    func servers7() async throws {
        let server = try JSONFileServer(root: URL(fileURLWithPath: "Examples/AppNet"),
                                        latency: .milliseconds(200))   // optional
        store.register(server, for: ADNRecord.self)
        let posts = try await Post.startRequest(urn: "posts", in: store)
        // reads Examples/AppNet/posts.json
        // Every name the block declares is used, as a reader would go on to use it.
        _ = server
        _ = posts
    }
}

// Docs/Servers.md, block 8
extension DocSnippetContext {
    func servers8() throws {
        let server = try JSONFileServer(root: responses) { request in
            request.data?["page"]?.int64Value.map { "\(request.urn)/page-\($0).json" }   // nil: the default rule
        }
        // Every name the block declares is used, as a reader would go on to use it.
        _ = server
    }
}

// Docs/Servers.md, block 9
extension DocSnippetContext {
    func servers9() throws {
        store.register(ADNServer(token: token), for: ADNRecord.self)   // a class and its subclasses
        store.register(filesServer, forEntity: "Venue")                // an entity and its sub-entities
    }
}

// Docs/Servers.md, block 10
extension DocSnippetContext {
    func servers10() async throws {
        let loopback = try LoopbackHTTPServer()
        loopback.route("/posts", [.status(503, headers: ["Retry-After": "0"]), .json(#"{"data": []}"#)])
        let server = HTTPServer(baseURL: loopback.baseURL)
        _ = try await server.response(for: ServerRequest(urn: "posts", entityName: "Post"))
        #expect(loopback.requests(to: "/posts").count == 2)
        // Every name the block declares is used, as a reader would go on to use it.
        _ = loopback
        _ = server
    }
}
