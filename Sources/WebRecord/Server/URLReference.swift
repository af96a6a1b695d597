import Foundation

/// URI references resolved as RFC 3986 §5.2 says, against the URL of the page that named them.
///
/// A next-page link may be absolute (`https://api.example.com/items?page=2`), a path
/// (`/items?page=2`), a relative path (`items?page=3`, `../next`), a query alone (`?page=2`) or
/// a fragment. Each resolves against its base the way browsers and curl do: a path replaces
/// the base's path, a relative path replaces its last segment, a query alone keeps the base's
/// path, and `.` and `..` segments are removed.
public enum URLReference {
    /// `reference` resolved against `base`, or nil when the result is not a URL.
    ///
    /// For example, against `https://api.example.com/v1/items?page=1`:
    /// `?page=2` → `https://api.example.com/v1/items?page=2`;
    /// `/v2/items` → `https://api.example.com/v2/items`;
    /// `../users` → `https://api.example.com/users`.
    public static func resolve(_ reference: String, against base: URL) -> URL? {
        let reference = Parts(reference)
        let base = Parts(base.absoluteString)
        var target = Parts()
        if let scheme = reference.scheme {
            target.scheme = scheme
            target.authority = reference.authority
            target.path = removingDotSegments(reference.path)
            target.query = reference.query
        } else {
            if reference.authority != nil {
                target.authority = reference.authority
                target.path = removingDotSegments(reference.path)
                target.query = reference.query
            } else {
                if reference.path.isEmpty {
                    target.path = base.path
                    target.query = reference.query ?? base.query
                } else {
                    if reference.path.hasPrefix("/") {
                        target.path = removingDotSegments(reference.path)
                    } else {
                        target.path = removingDotSegments(merge(base: base, reference: reference.path))
                    }
                    target.query = reference.query
                }
                target.authority = base.authority
            }
            target.scheme = base.scheme
        }
        target.fragment = reference.fragment
        // Schemes are case-insensitive; the lower-case form is the normal one (§6.2.2.1).
        target.scheme = target.scheme?.lowercased()
        return URL(string: target.recomposed)
    }

    /// The origin (scheme, host and port, RFC 6454) of a URL, lower-cased, with the scheme's
    /// default port when none is written: two URLs of one origin may share credentials.
    static func origin(of url: URL) -> String {
        let scheme = (url.scheme ?? "").lowercased()
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\((url.host ?? "").lowercased()):\(port)"
    }

    // MARK: - RFC 3986 §5.2

    /// A reference split by RFC 3986 appendix B's regular expression.
    private struct Parts {
        var scheme: String?
        var authority: String?
        var path = ""
        var query: String?
        var fragment: String?

        init() {}

        init(_ text: String) {
            var rest = Substring(text)
            if let hash = rest.firstIndex(of: "#") {
                fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            }
            if let question = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: question)...])
                rest = rest[..<question]
            }
            if let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains("/"), colon != rest.startIndex,
                rest[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
            {
                scheme = String(rest[..<colon])
                rest = rest[rest.index(after: colon)...]
            }
            if rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
                let end = rest.firstIndex(of: "/") ?? rest.endIndex
                authority = String(rest[..<end])
                rest = rest[end...]
            }
            path = String(rest)
        }

        var recomposed: String {
            var text = ""
            if let scheme { text += scheme + ":" }
            if let authority { text += "//" + authority }
            text += path
            if let query { text += "?" + query }
            if let fragment { text += "#" + fragment }
            return text
        }
    }

    /// §5.2.3: the reference's path below the base path's directory.
    private static func merge(base: Parts, reference: String) -> String {
        if base.authority != nil, base.path.isEmpty { return "/" + reference }
        guard let slash = base.path.lastIndex(of: "/") else { return reference }
        return String(base.path[...slash]) + reference
    }

    /// §5.2.4: removes `.` and `..` segments.
    static func removingDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                // Move the first segment (with its leading "/", if any) to the output.
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }
}
