import Foundation
import WebRecord

/// How URL sources are fetched: extra headers and a timeout, from `--header` and `--timeout`.
struct URLFetchOptions {
    var headers: [String: String] = [:]
    var timeout: TimeInterval?

    /// Reads the options.
    ///
    /// - Throws: ``UsageError`` for a header without a colon or a timeout that is not a
    ///   positive number.
    init(headers: [String], timeout: String?) throws {
        for header in headers {
            guard let colon = header.firstIndex(of: ":") else {
                throw UsageError(message: "invalid header '\(header)'; expected 'Name: value'", command: PopulateCommand.spec)
            }
            let name = header[..<colon].trimmingCharacters(in: .whitespaces)
            let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !name.contains(" ") else {
                throw UsageError(message: "invalid header '\(header)'; expected 'Name: value'", command: PopulateCommand.spec)
            }
            self.headers[name] = value
        }
        if let timeout {
            guard let seconds = TimeInterval(timeout), seconds.isFinite, seconds > 0 else {
                throw UsageError(message: "invalid timeout '\(timeout)'; expected a positive number of seconds", command: PopulateCommand.spec)
            }
            self.timeout = seconds
        }
    }
}

/// Fetches a URL source with ``HTTPServer``: one GET, JSON expected.
enum URLSource {
    /// Fetches and parses the response at `url`.
    ///
    /// - Throws: ``Failure`` with the server's reason on one line: a non-2xx status, a
    ///   truncated or non-JSON body, a refused connection or a timeout. The library's messages
    ///   name the URL with any credentials in it redacted, so the URL is not repeated.
    static func fetch(_ url: URL, entity: String, options: URLFetchOptions) async throws -> JSONValue {
        let server = HTTPServer(baseURL: url, headers: options.headers)
        let request = ServerRequest(urn: url.absoluteString, timeout: options.timeout, entityName: entity)
        do {
            return try await server.response(for: request).body
        } catch let error as WebRecordError {
            throw Failure(StoreAccess.describe(error))
        } catch {
            throw Failure("serverError: \(error)")
        }
    }
}
