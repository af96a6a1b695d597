import Foundation
import TestSupport
import Testing
import WebRecordTesting

@testable import WebRecord

/// No one can use a response, a URN or a schema to reach where they don't belong: identifiers
/// only from validated schemas, values always bound, file servers kept in their root, secrets
/// kept out of logs, private store files, TLS always verified.
///
/// Related tests elsewhere: `JSONFileServerTests` (`..`, absolute paths, symbolic links),
/// `HTTPServerTests.trafficIsLoggedAtAllWithSecretsRedacted`,
/// `LoggingTests.theDefaultLevelIsNoneAndPrintsNothing`,
/// `RecordStoreCreationTests.aNewFileIsReadableAndWritableByItsOwnerOnly`,
/// `RecordStoreTransactionTests.theSQLOfAFailedStatementHoldsNoBoundValues`.
@Suite("Reliability: security", .loadsTheMachine)
struct ReliabilitySecurityTests {
    // MARK: - Identifiers

    static let injectedNames = InjectionPayloads.names

    static func schemaJSON(entity: String = "Post", attribute: String = "text", relationship: String = "user") -> String
    {
        func quoted(_ name: String) -> String { JSONValue.string(name).serialized() }
        return """
            {"version": 1, "entities": {
              \(quoted(entity)): {"primaryKey": "id",
                "attributes": {"id": {"type": "string"}, \(quoted(attribute)): {"type": "string"}},
                "relationships": {\(quoted(relationship)): {"destination": "User", "inverse": "posts"}}},
              "User": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
                "relationships": {"posts": {"destination": \(quoted(entity)), "toMany": true, "inverse": \(quoted(relationship))}}}
            }}
            """
    }

    @Test(
        "A schema whose entity, attribute or relationship name is not an identifier is rejected",
        arguments: injectedNames)
    func injectionLookingNamesAreRejected(name: String) throws {
        #expect(throws: Never.self) { try Schema(json: Self.schemaJSON(), fileName: "Good.json") }
        for (place, json) in [
            ("entity", Self.schemaJSON(entity: name)), ("attribute", Self.schemaJSON(attribute: name)),
            ("relationship", Self.schemaJSON(relationship: name)),
        ] {
            do {
                let schema = try Schema(json: json, fileName: "Evil.json")
                Issue.record("an \(place) named \(name.debugDescription) was accepted: \(schema)")
            } catch {
                #expect(!error.problems.isEmpty)
                #expect(
                    error.schemaProblems.contains { $0.description.hasPrefix("Evil.json: ") }, "\(error.schemaProblems)"
                )
            }
        }
    }

    @Test("webrecord lint rejects an injection-looking schema with exit 1")
    func lintRejectsInjection() async throws {
        let webrecord = try ChildProcess.webrecord()
        let directory = try TemporaryDirectory()
        let path = try directory.write("Evil.json", Data(Self.schemaJSON(entity: #"Post"; DROP TABLE Post; --"#).utf8))
        let result = try await ChildProcess.run(webrecord, ["lint", path])
        #expect(result.status == 1, "\(result)")
        // lint lists the problems on standard output.
        #expect(result.stdout.contains("Evil.json: "), "\(result)")
        #expect(result.stdout.contains("not an identifier"), "\(result)")
    }

    @Test("Names given at run time are checked against the schema, never spliced into SQL")
    func runTimeNamesAreChecked() throws {
        let store = try RecordStore(inMemory: Reliability.appNetSchema())
        _ = try store.populate(AppNetResponses.response(posts: 3, seed: 41), entity: "Post")
        let evil = #"Post"; DROP TABLE "Post"; --"#
        #expect(throws: WebRecordError.self) { try store.fetch(evil) }
        #expect(throws: WebRecordError.self) { try store.count(evil) }
        #expect(throws: WebRecordError.self) { try store.exportJSON(entity: evil) }
        #expect(throws: WebRecordError.self) {
            try store.fetch("Post", orderBy: [.ascending(#"text"; DROP TABLE "Post"; --"#)])
        }
        do {
            _ = try store.populate(["data": []], entity: evil)
            Issue.record("an unknown entity was populated")
        } catch {
            #expect(error.code == .invalidEntityDescription)
        }
        #expect(try store.count("Post") == 3)
    }

    // MARK: - Values are bound

    static let payloads = InjectionPayloads.values

    @Test("SQL-injection payloads in every string field come back verbatim from fetch and export")
    func injectionPayloadsAreStoredVerbatim() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("payloads.sqlite")
        let store = try RecordStore(path: db, schema: Reliability.appNetSchema())
        var posts: [JSONValue] = []
        for (index, payload) in Self.payloads.enumerated() {
            posts.append([
                "id": .string("\(index)\(payload)"), "text": .string(payload), "thread_id": .string(payload),
                "source": ["client_id": .string(payload), "link": .string(payload), "name": .string(payload)],
                "user": [
                    "id": .string("u\(index)\(payload)"), "name": .string(payload),
                    "avatar_image": ["url": .string(payload)],
                    "cover_image": ["url": .string(payload), "width": 1, "height": 2],
                    "counts": ["followers": 1],
                ],
            ])
        }
        let result = try await store.populate(["data": .array(posts)], entity: "Post")
        #expect(result.records.count == Self.payloads.count)
        #expect(result.debugger.warnings.isEmpty, "\(result.debugger)")

        for (index, payload) in Self.payloads.enumerated() {
            let post = try #require(try store.fetchOne("Post", primaryKey: .string("\(index)\(payload)")))
            #expect(post["text"] as String? == payload)
            #expect(post["thread_id"] as String? == payload)
            let user = try #require(try store.fetchOne("User", primaryKey: .string("u\(index)\(payload)")))
            #expect(user["name"] as String? == payload)
            #expect(user["avatarImagePath"] as String? == payload)
            #expect(user["coverImagePath"] as String? == payload)
            #expect(try store.count("Post", where: "text = ?", arguments: [payload]) == 1)
        }
        let exported = try store.exportJSON(entity: "Post").arrayValue ?? []
        #expect(Set(exported.compactMap { $0["text"]?.stringValue }) == Set(Self.payloads))
        let sources = try store.exportJSON(entity: "Source").arrayValue ?? []
        #expect(Set(sources.compactMap { $0["clientID"]?.stringValue }) == Set(Self.payloads))
        let images = try store.exportJSON(entity: "CoverImage").arrayValue ?? []
        #expect(Set(images.compactMap { $0["url"]?.stringValue }) == Set(Self.payloads))
        #expect(try Reliability.integrity(store) == ["ok"])
        #expect(!FileManager.default.fileExists(atPath: "/tmp/evil.db"))

        // And through `webrecord export`, as a user reads them.
        let webrecord = try ChildProcess.webrecord()
        let export = try await ChildProcess.run(
            webrecord, ["export", "--schema", Reliability.appNetSchemaURL.path, "--db", db, "--entity", "Post"])
        #expect(export.status == 0, "\(export)")
        let printed = try JSONReader().read(export.stdout)
        #expect(Set(printed.arrayValue?.compactMap { $0["text"]?.stringValue } ?? []) == Set(Self.payloads))
        #expect(Set(printed.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []).count == Self.payloads.count)
    }

    // MARK: - JSONFileServer

    static let escapingURNs = [
        "%2e%2e/outside", "..%2Foutside", "..\\outside", "stream/..?x=1", "//\(NSTemporaryDirectory())", "~/outside",
        "~root/outside", "stream/./../../outside", "stream/0/../../../outside", "responses-sibling/secret",
        "link-to-sibling/secret",
        "link-to-outside-dir/outside", "outside.json\u{0}.json",
    ]

    /// The URNs above that name a file inside the root, which is not there (`notFound`): the
    /// server decodes neither percent escapes nor backslashes, and `responses-sibling` is a
    /// folder beside the root. The others are refused as leaving the root (`invalidArgument`).
    static let missingInsideTheRoot: Set<String> = [
        "%2e%2e/outside", "..%2Foutside", "..\\outside", "responses-sibling/secret",
    ]

    @Test("JSONFileServer never answers from outside its root", arguments: escapingURNs)
    func fileServerStaysInItsRoot(urn: String) async throws {
        let directory = try TemporaryDirectory()
        let root = directory.url.appendingPathComponent("responses", isDirectory: true)
        let sibling = directory.url.appendingPathComponent("responses-sibling", isDirectory: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("stream/0"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: sibling, withIntermediateDirectories: true)
        try Data(#"{"inside": true}"#.utf8).write(to: root.appendingPathComponent("stream/0/inside.json"))
        try Data(#"{"secret": "outside"}"#.utf8).write(to: directory.url.appendingPathComponent("outside.json"))
        try Data(#"{"secret": "sibling"}"#.utf8).write(to: sibling.appendingPathComponent("secret.json"))
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("link-to-sibling"), withDestinationURL: sibling)
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("link-to-outside-dir"), withDestinationURL: directory.url)
        let server = try JSONFileServer(root: root)
        #expect(
            try await server.response(for: ServerRequest(urn: "stream/0/inside", entityName: "Post")).body == [
                "inside": true
            ])

        do {
            let response = try await server.response(for: ServerRequest(urn: urn, entityName: "Post"))
            Issue.record("URN \(urn.debugDescription) was answered: \(response.body)")
        } catch {
            #expect(error.code == (Self.missingInsideTheRoot.contains(urn) ? .notFound : .invalidArgument), "\(error)")
            #expect(!error.message.contains("\"secret\""))
        }
    }

    // MARK: - Logging

    @Test("At the default level a population, a file request and failures log nothing")
    func defaultLevelLogsNothing() async throws {
        let directory = try TemporaryDirectory()
        let marker = "reliability-quiet-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            at: directory.url.appendingPathComponent("r"), withIntermediateDirectories: true)
        try Data("{\"data\": [{\"id\": \"\(marker)\", \"text\": {\"wrong\": 1}}, {\"text\": \"no key\"}]}".utf8)
            .write(to: directory.url.appendingPathComponent("r/posts.json"))
        let root = directory.url.appendingPathComponent("r")
        let (_, events) = try await InMemoryLogHandler.capture(level: .none) {
            let store = try RecordStore(inMemory: Reliability.appNetSchema())
            let response = try await JSONFileServer(root: root).response(
                for: ServerRequest(urn: "posts", entityName: "Post"))
            let result = try await store.populate(response.body, entity: "Post")
            _ = try? await store.populate(["data": 5], entity: "Post")
            return result.debugger.warnings.count
        }
        #expect(!events.contains { $0.description.contains(marker) || $0.entity == "Post" })
    }

    @Test("webrecord populate --quiet prints nothing at all, warnings included, at the default logging level")
    func commandLineDefaultPrintsNothing() async throws {
        let webrecord = try ChildProcess.webrecord()
        let directory = try TemporaryDirectory()
        let source = try directory.write(
            "warnings.json", Data(#"{"data": [{"id": "1", "text": {"wrong": 1}}, {"text": "no key"}]}"#.utf8))
        let result = try await ChildProcess.run(
            webrecord,
            [
                "populate", "--schema", Reliability.appNetSchemaURL.path, "--db", directory.path("q.sqlite"),
                "--entity", "Post", "--quiet", source,
            ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
    }

    @Test("At .all, Authorization, Cookie and configured secret parameters are redacted from logs and errors")
    func secretsAreRedactedAtAll() async throws {
        let loopback = try LoopbackHTTPServer()
        defer { loopback.stop() }
        loopback.route("/ok", .json(#"{"data": []}"#))
        loopback.route("/missing", .status(404))
        let secrets = [
            "authorization-secret-1", "cookie-secret-2", "proxy-secret-3", "configured-header-4", "configured-query-5",
            "configured-body-6", "token-query-7", "url-password-8",
        ]
        let (messages, events) = try await InMemoryLogHandler.capture(level: .all) {
            let previous = Redaction.secretNames
            Redaction.secretNames = previous.union(["X-Reliability-Signature", "reliability_signature"])
            defer { Redaction.secretNames = previous }
            let server = HTTPServer(
                baseURL: loopback.baseURL,
                headers: [
                    "Authorization": "Bearer authorization-secret-1", "X-Reliability-Signature": "configured-header-4",
                ],
                maxRetries: 0)
            var messages: [String] = []
            _ = try await server.response(
                for: ServerRequest(
                    urn: "ok?reliability_signature=configured-query-5&token=token-query-7&page=2", method: "GET",
                    headers: ["Cookie": "sid=cookie-secret-2", "Proxy-Authorization": "Basic proxy-secret-3"],
                    entityName: "Post"))
            _ = try await server.response(
                for: ServerRequest(
                    urn: "ok", data: ["reliability_signature": "configured-body-6", "page": 2], method: "POST",
                    entityName: "Post"))
            do {
                _ = try await server.response(
                    for: ServerRequest(urn: "missing?reliability_signature=configured-query-5", entityName: "Post"))
            } catch {
                messages.append("\(error)")
            }
            var components = try #require(URLComponents(url: loopback.url("/missing"), resolvingAgainstBaseURL: false))
            components.user = "user"
            components.password = "url-password-8"
            let withPassword = try #require(components.url)
            do {
                _ = try await HTTPServer(baseURL: withPassword, maxRetries: 0).response(
                    for: ServerRequest(urn: withPassword.absoluteString, entityName: "Post"))
            } catch {
                messages.append("\(error)")
            }
            return messages
        }
        // The requests really carried the secrets...
        let sent = loopback.requests.map { "\($0.path)?\($0.query ?? "") \($0.headers) \($0.bodyText)" }.joined(
            separator: "\n")
        for secret in [
            "authorization-secret-1", "cookie-secret-2", "configured-header-4", "configured-query-5",
            "configured-body-6", "token-query-7",
        ] {
            #expect(sent.contains(secret), "the request should have carried \(secret)")
        }
        // ...and neither the log nor the error messages show them.
        let logged = events.map { "\($0.description) \($0.metadata)" }.joined(separator: "\n")
        #expect(events.contains { $0.message.hasPrefix("HTTP GET") }, "traffic should be logged at .all")
        #expect(messages.count == 2)
        for secret in secrets {
            #expect(!logged.contains(secret), "\(secret) was logged")
            #expect(!messages.joined(separator: "\n").contains(secret), "\(secret) is in an error message: \(messages)")
        }
        #expect(logged.contains("<redacted>"))
        #expect(logged.contains("page=2"), "parameters that are not secret stay readable")
    }

    // MARK: - Store files

    @Test("A new store file, its WAL and its shared-memory file are readable and writable by their owner only")
    func newStoreFilesAreOwnerOnly() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("private.sqlite")
        let store = try RecordStore(path: path, schema: Reliability.appNetSchema())
        _ = try await store.populate(AppNetResponses.response(posts: 2, seed: 42), entity: "Post")
        for file in [path, path + "-wal", path + "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.uint16Value
            #expect(mode == 0o600, "\(file): \(String(mode ?? 0, radix: 8))")
        }

        let webrecord = try ChildProcess.webrecord()
        let cliPath = directory.path("cli.sqlite")
        let source = try directory.write("p.json", AppNetResponses.bytes(AppNetResponses.response(posts: 2, seed: 43)))
        let result = try await ChildProcess.run(
            webrecord,
            ["populate", "--schema", Reliability.appNetSchemaURL.path, "--db", cliPath, "--entity", "Post", source])
        #expect(result.status == 0, "\(result)")
        let mode = (try FileManager.default.attributesOfItem(atPath: cliPath)[.posixPermissions] as? NSNumber)?
            .uint16Value
        #expect(mode == 0o600)
    }

    // MARK: - TLS

    /// An HTTPS server on loopback with a self-signed certificate (python3 and openssl). It
    /// prints `port N` once listening, and serves for `argv[3]` seconds: longer than the test
    /// runs, which kills it when it ends.
    static let tlsServer = """
        import http.server, ssl, sys
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = b'{"data": [{"id": "tls"}]}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        server.timeout = 1
        print("port", server.server_address[1], flush=True)
        import time
        deadline = time.time() + float(sys.argv[3])
        while time.time() < deadline:
            server.handle_request()
        """

    static let tlsClient = """
        import ssl, sys, urllib.request
        context = ssl._create_unverified_context()
        print(urllib.request.urlopen(sys.argv[1], context=context, timeout=300).read().decode())
        """

    @Test(
        "TLS is verified: an https server with a self-signed certificate is refused",
        .enabled(
            if: ChildProcess.hasPythonSQLite && (try? ChildProcess.onPath("openssl")) != nil,
            "needs python3 and openssl"))
    func selfSignedCertificateIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let key = directory.path("key.pem")
        let certificate = directory.path("cert.pem")
        let generated = try await ChildProcess.run(
            try ChildProcess.onPath("openssl"),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ])
        try #require(generated.status == 0, "\(generated)")
        let server = try ChildProcess.python(Self.tlsServer, [certificate, key, "1200"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let ready = await server.waitForOutput("port ")
        #expect(ready)
        let port = try #require(
            server.stdout.split(separator: "\n").first { $0.hasPrefix("port ") }.flatMap { Int($0.dropFirst(5)) })
        let url = try #require(URL(string: "https://127.0.0.1:\(port)/posts"))

        // The server works for a client that skips verification...
        let unverified = try await ChildProcess.run(
            try ChildProcess.onPath("python3"), ["-c", Self.tlsClient, url.absoluteString])
        #expect(unverified.stdout.contains(#""id": "tls""#), "\(unverified)")

        // ...and WebRecord refuses it.
        do {
            // A timeout only a hang reaches: the refusal, not a slow handshake, ends the request.
            let response = try await HTTPServer(baseURL: url, timeout: MachineLoad.hangTimeout, maxRetries: 0)
                .response(for: ServerRequest(urn: url.absoluteString, entityName: "Post"))
            Issue.record("a self-signed certificate was accepted: \(response.body)")
        } catch let error as WebRecordError {
            #expect(error.code == .serverError, "\(error)")
        }

        let webrecord = try ChildProcess.webrecord()
        let result = try await ChildProcess.run(
            webrecord,
            [
                "populate", "--schema", Reliability.appNetSchemaURL.path, "--db", directory.path("tls.sqlite"),
                "--entity", "Post", url.absoluteString,
            ])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("serverError"), "\(result.stderr)")
        #expect(
            !FileManager.default.fileExists(atPath: directory.path("tls.sqlite")),
            "no store should be made from a refused source")
    }

    @Test("No source file turns off certificate verification")
    func noSourceDisablesVerification() throws {
        let sources = Reliability.packageRoot.appendingPathComponent("Sources")
        let forbidden = [
            "serverTrust", "URLCredential(trust", "SecTrust", "CURLOPT_SSL_VERIFYPEER", "CURLOPT_SSL_VERIFYHOST",
            "allowsInvalidCertificates", "validatesDomainName = false", "cancelAuthenticationChallenge",
        ]
        var scanned = 0
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard ["swift", "h", "c"].contains(file.pathExtension) else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            scanned += 1
            for word in forbidden {
                #expect(!text.contains(word), "\(file.lastPathComponent) mentions \(word)")
            }
        }
        #expect(scanned > 50)
    }
}
