import Foundation
import WebRecord

/// How URL sources are fetched: extra headers, a timeout and a body limit, from `--header`,
/// `--timeout` and `--max-body-size`.
struct URLFetchOptions {
    var headers: [String: String] = [:]
    var timeout: TimeInterval?
    var maximumBodySize = HTTPServer.defaultMaximumBodySize

    /// Reads the options.
    ///
    /// - Throws: ``UsageError`` for a header without a colon, with a name that is not an HTTP
    ///   token or with a value holding a carriage return, line feed or other control character
    ///   (see ``HTTPServer/headerProblem(name:value:)``); for a timeout that is not a positive
    ///   number of seconds, or is longer than ``HTTPServer/maximumTimeout``; for a body limit
    ///   that is not a positive integer number of bytes. No message repeats a header's value,
    ///   which may be a secret.
    init(headers: [String], timeout: String?, maximumBodySize: String? = nil) throws {
        for header in headers {
            guard let colon = header.firstIndex(of: ":") else {
                throw Self.invalid(header)
            }
            let name = header[..<colon].trimmingCharacters(in: .whitespaces)
            // Spaces and tabs around the value go; a carriage return or line feed stays, to be refused.
            let value = header[header.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            guard !name.isEmpty, !name.contains(" ") else {
                throw Self.invalid(header)
            }
            if let problem = HTTPServer.headerProblem(name: name, value: value) {
                throw UsageError(message: "invalid --header: \(problem)", command: PopulateCommand.spec)
            }
            self.headers[name] = value
        }
        if let timeout {
            // A decimal number only: Swift's Double parser would also take `0x10` or `1e2_0`.
            guard JSONNumberText.parts(of: timeout) != nil, let seconds = TimeInterval(timeout), seconds.isFinite,
                seconds > 0
            else {
                throw UsageError(
                    message: "invalid timeout '\(timeout)'; expected a positive number of seconds",
                    command: PopulateCommand.spec)
            }
            guard seconds <= HTTPServer.maximumTimeout else {
                throw UsageError(
                    message:
                        "invalid timeout '\(timeout)'; expected at most \(Int(HTTPServer.maximumTimeout)) seconds (one day)",
                    command: PopulateCommand.spec)
            }
            self.timeout = seconds
        }
        if let maximumBodySize {
            guard maximumBodySize.utf8.allSatisfy({ (48...57).contains($0) }), let bytes = Int(maximumBodySize),
                bytes > 0
            else {
                throw UsageError(
                    message:
                        "invalid --max-body-size '\(maximumBodySize)'; expected a positive integer number of bytes, at most \(Int.max)",
                    command: PopulateCommand.spec)
            }
            self.maximumBodySize = bytes
        }
    }

    /// A header that is not `Name: value`, shown up to its first space or through its first colon:
    /// what follows may be a secret (`--header "$NAME:$TOKEN"` with `NAME` unset gives `:TOKEN`).
    private static func invalid(_ header: String) -> UsageError {
        let end = header.firstIndex(where: { $0.isWhitespace || $0 == ":" }).map {
            header[$0] == ":" ? header.index(after: $0) : $0
        }
        let shown = end.map { String(header[..<$0]) + " ..." } ?? header
        return UsageError(message: "invalid header '\(shown)'; expected 'Name: value'", command: PopulateCommand.spec)
    }
}

/// How a URL source is requested: through the library's request API, as a library user would,
/// with an ``HTTPServer`` for the URL.
enum URLSource {
    /// The options of the request (or of each page's request) for `url`: an ``HTTPServer`` on
    /// the URL with the `--header`s (which it sends only to the URL's origin) and the
    /// `--max-body-size`, the `--timeout`, and how the response populates the store.
    static func requestOptions(for url: URL, population: PopulationOptions, fetch: URLFetchOptions) -> RequestOptions {
        RequestOptions(
            population: population,
            server: HTTPServer(baseURL: url, headers: fetch.headers, maximumBodySize: fetch.maximumBodySize),
            timeout: fetch.timeout)
    }
}
