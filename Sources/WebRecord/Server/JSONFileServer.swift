import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``Server`` that answers from JSON files in a directory: recorded responses for
/// examples, tests and offline work.
///
/// A URN names a file below ``root``:
/// - the URN's query (after `?`) and fragment (after `#`) are ignored, and so are the
///   request's parameters and method;
/// - when the URN's last path component has no extension, `.json` is appended, so
///   `stream/0/posts/stream/global` is `ROOT/stream/0/posts/stream/global.json`, while
///   `venues.txt` stays `venues.txt`;
/// - a URN that is absolute (`/etc/passwd`), contains a `..` component, or resolves (following
///   symbolic links) outside the root is refused with `invalidArgument`; a symbolic link that
///   stays inside the root is followed.
///
/// For example:
///
/// ```swift
/// let server = try JSONFileServer(root: URL(fileURLWithPath: "Examples/AppNet"))
/// store.register(server, for: Post.self)
/// let posts = try await Post.startRequest(urn: "stream/0/posts/stream/global", in: store)
/// ```
///
/// To map requests to files differently (a page number to its own file, say), pass
/// `fileName`; what it returns is checked the same way.
///
/// A request that asks for progress (``RequestOptions/progress``) hears the file's size once
/// it is read, as the parse starts.
public struct JSONFileServer: Server {
    /// The directory responses are read from, symbolic links resolved.
    public let root: URL
    /// How long each response takes, to simulate a network. Default zero.
    public let latency: Duration
    /// Maps a request to a file path relative to ``root``, or nil to use the URN's rules.
    public let fileName: (@Sendable (ServerRequest) -> String?)?

    /// Creates a server reading from `root`.
    ///
    /// - Parameters:
    ///   - root: an existing directory.
    ///   - latency: a delay before each response, to simulate a network.
    ///   - fileName: maps a request to a path relative to the root, overriding the URN rules.
    /// - Throws: ``WebRecordError`` `notFound` when `root` is not an existing directory.
    public init(
        root: URL, latency: Duration = .zero, fileName: (@Sendable (ServerRequest) -> String?)? = nil
    ) throws(WebRecordError) {
        guard let resolved = Self.realPath(root.path) else {
            throw WebRecordError(.notFound, "the response directory '\(root.path)' does not exist")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw WebRecordError(.notFound, "'\(root.path)' is not a directory")
        }
        self.root = URL(fileURLWithPath: resolved, isDirectory: true)
        self.latency = latency
        self.fileName = fileName
    }

    /// Reads the file for `request`'s URN and parses it.
    ///
    /// - Parameter request: the request.
    /// - Returns: the parsed file, with its file URL.
    /// - Throws: ``WebRecordError`` naming the URN: `invalidArgument` for a path that escapes
    ///   the root, `notFound` for a missing file, `invalidResponseFormat` for a file that is
    ///   not JSON (with line and column), `cancelled` when cancelled during the latency.
    public func response(for request: ServerRequest) async throws(WebRecordError) -> ServerResponse {
        if latency > .zero {
            do {
                try await Task.sleep(for: latency)
            } catch {
                throw WebRecordError.cancelled(entity: request.entityName)
            }
        }
        if Task.isCancelled { throw WebRecordError.cancelled(entity: request.entityName) }
        let url = try fileURL(for: request)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw WebRecordError(
                .notFound,
                "cannot read the response for URN '\(Redaction.urn(request.urn))' at \(url.path): \(error.localizedDescription)"
            )
        }
        ProgressReporter.current?.reading(data.count)
        do {
            return ServerResponse(body: try JSONReader().read(data), url: url)
        } catch {
            throw WebRecordError.invalidJSON(error, source: "URN '\(Redaction.urn(request.urn))' (\(url.path))")
        }
    }

    /// The file a request is answered from, checked to be inside the root.
    ///
    /// - Parameter request: the request.
    /// - Returns: the file's URL, symbolic links resolved.
    /// - Throws: ``WebRecordError``: `invalidArgument` when the path escapes the root,
    ///   `notFound` when there is no such file.
    public func fileURL(for request: ServerRequest) throws(WebRecordError) -> URL {
        let urn = request.urn
        let relative = fileName?(request) ?? Self.defaultPath(for: urn)
        if relative.isEmpty || relative.contains("\0") {
            throw WebRecordError(.invalidArgument, "URN '\(Redaction.urn(urn))' does not name a file")
        }
        if relative.hasPrefix("/") || relative.hasPrefix("~") {
            throw WebRecordError(
                .invalidArgument,
                "URN '\(Redaction.urn(urn))' is an absolute path; it must be relative to the server's root")
        }
        if relative.split(separator: "/").contains("..") {
            throw WebRecordError(
                .invalidArgument, "URN '\(Redaction.urn(urn))' contains '..'; it must stay inside the server's root")
        }
        let candidate = root.appendingPathComponent(relative).path
        guard let resolved = Self.realPath(candidate) else {
            throw WebRecordError(
                .notFound, "no response file for URN '\(Redaction.urn(urn))' (looked for \(candidate))")
        }
        let rootPath = root.path.hasSuffix("/") ? root.path : root.path + "/"
        guard resolved.hasPrefix(rootPath) else {
            throw WebRecordError(
                .invalidArgument,
                "URN '\(Redaction.urn(urn))' resolves outside the server's root (a symbolic link leads out of it)")
        }
        return URL(fileURLWithPath: resolved)
    }

    /// The path for a URN: query and fragment dropped, `.json` added when there is no extension.
    static func defaultPath(for urn: String) -> String {
        var path = urn
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<end]) }
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        if !last.isEmpty, !last.dropFirst().contains(".") { path += ".json" }
        return path
    }

    /// The canonical path (`realpath(3)`): absolute, symbolic links and `.`/`..` resolved; nil
    /// when the path does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
