import Foundation

// MARK: - Headers, timeouts and waits, checked

extension HTTPServer {
    /// The longest timeout and the longest wait before a retry, in seconds: one day.
    ///
    /// A longer ``timeout``, ``ServerRequest/timeout`` or ``maximumRetryDelay`` is clamped to
    /// it, and so is any `Retry-After` a server sends, so that no value can overflow the clock.
    public static let maximumTimeout: TimeInterval = 86_400

    /// The default of ``maximumBodySize``: 256 MiB (268,435,456 bytes), decoded.
    ///
    /// A body is counted after its `Content-Encoding` is decoded, as it arrives, so that a
    /// compressed body that inflates far beyond its size on the wire is stopped at the limit.
    /// Raise it for an API whose single responses are larger, or page them.
    public static let defaultMaximumBodySize = 256 << 20

    /// The schemes WebRecord requests: `http` and `https`. A URN, a next page or a redirect of
    /// any other scheme is refused before anything is sent.
    static let followedSchemes: Set<String> = ["http", "https"]

    /// The scheme a URN or URL starts with (RFC 3986: a letter, then letters, digits, `+`, `-`
    /// or `.`, then `:`), lower-cased; nil when it has none (a path such as `posts` or
    /// `users/1:2`).
    static func scheme(of urn: String) -> String? {
        guard let colon = urn.firstIndex(of: ":") else { return nil }
        let scheme = urn[..<colon]
        guard let first = scheme.unicodeScalars.first, isSchemeLetter(first),
            scheme.unicodeScalars.allSatisfy({ isSchemeLetter($0) || isSchemeMark($0) })
        else { return nil }
        return scheme.lowercased()
    }

    private static func isSchemeLetter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z": true
        default: false
        }
    }

    private static func isSchemeMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "0"..."9", "+", "-", ".": true
        default: false
        }
    }

    /// Why a header cannot be sent as given, or nil when it can.
    ///
    /// A name must be an HTTP token: letters, digits and ``!#$%&'*+-.^_`|~``. A value must not
    /// hold a carriage return, a line feed, NUL or another control character but the tab:
    /// URLSession would drop such a header without a word (a token read from a file with CRLF
    /// line endings ends with a carriage return). ``urlRequest(for:)`` refuses such headers, and
    /// `webrecord populate --header` does too. The value is never repeated in the message, as it
    /// may be a secret.
    ///
    /// For example:
    ///
    /// ```swift
    /// HTTPServer.headerProblem(name: "Authorization", value: "token abc\r")
    /// // "the value of header 'Authorization' contains a carriage return (\r)"
    /// ```
    ///
    /// - Parameters:
    ///   - name: the header's name.
    ///   - value: the header's value.
    /// - Returns: the problem, one line, naming the header; nil for a header that can be sent.
    package static func headerProblem(name: String, value: String) -> String? {
        if name.isEmpty { return "a header has an empty name" }
        if let bad = name.unicodeScalars.first(where: { !isTokenCharacter($0) }) {
            return
                "header name '\(Redaction.text(name))' contains \(describe(bad)); a name is letters, digits and !#$%&'*+-.^_`|~"
        }
        if let bad = value.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
            return "the value of header '\(name)' contains \(describe(bad))"
        }
        return nil
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": true
        default: "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar)
        }
    }

    private static func describe(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\r": "a carriage return (\\r)"
        case "\n": "a line feed (\\n)"
        case "\t": "a tab"
        case " ": "a space"
        case "\0": "a NUL character"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            "the control character U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4))"
        default: "'\(scalar)'"
        }
    }

    /// The timeout one attempt of `request` may take: the request's own, else ``timeout``,
    /// clamped to ``maximumTimeout``.
    ///
    /// - Throws: ``WebRecordError`` `invalidArgument` when it is not a positive number (zero,
    ///   negative or NaN).
    func effectiveTimeout(for request: ServerRequest) throws(WebRecordError) -> TimeInterval {
        let limit = request.timeout ?? timeout
        guard limit > 0 else { throw WebRecordError.invalidTimeout(limit) }
        return min(limit, Self.maximumTimeout)
    }

    /// `seconds` as nanoseconds for `Task.sleep`, clamped to 0...``maximumTimeout``: never
    /// traps, whatever the value (NaN waits 0).
    static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        guard seconds > 0 else { return 0 }
        return UInt64(min(seconds, maximumTimeout) * 1_000_000_000)
    }
}
