/// Whether a text is a URI reference as RFC 3986 writes one (section 4.1): an absolute URI
/// (`https://example.com/a?b=c#d`, `mailto:a@example.com`, `urn:isbn:0451450523`) or a relative
/// reference (`/avatars/1.png`, `//cdn.example.com/x`, `../up`, `?page=2`, `#top`, `photo.jpg`).
///
/// Checked, part by part:
/// - a scheme, when the text has a `:` before any `/`, `?` or `#`, is a letter and then letters,
///   digits, `+`, `-` or `.` (so `1http://x` and `:x` are refused);
/// - an authority (after `//`) is `[userinfo@]host[:port]`: a port is digits only, a host is a
///   registered name or an IP literal in brackets (`[::1]`);
/// - the path, query and fragment hold only the characters RFC 3986 allows there: letters,
///   digits, `-._~`, `!$&'()*+,;=`, `:` and `@`, `/` (and `?` in a query or fragment), and `%`
///   followed by two hex digits. A space, `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`, a
///   second `#`, a `[` or `]` outside the host, and a `%` not followed by two hex digits are
///   refused.
///
/// One extension, as RFC 3987 (IRIs) makes it: a character outside ASCII is taken where a letter
/// is (`https://example.com/café`), since servers send such links as they are; the characters
/// that no URL may hold (controls, invisible formatting characters, line separators) are refused
/// before (``ValueCoercion``).
enum URIReference {
    /// Whether `text` is a URI reference (see the type's description).
    static func isValid(_ text: String) -> Bool {
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") {
            guard rest[rest.index(after: hash)...].unicodeScalars.allSatisfy({ isQueryCharacter($0) }) else {
                return false
            }
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            guard rest[rest.index(after: question)...].unicodeScalars.allSatisfy({ isQueryCharacter($0) }) else {
                return false
            }
            rest = rest[..<question]
        }
        guard percentSignsAreEncodings(text) else { return false }
        // A scheme: a ':' before any '/' (the query and fragment are gone already).
        if let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains("/") {
            let scheme = rest[..<colon].unicodeScalars
            guard let first = scheme.first, first.isASCII, first.properties.isAlphabetic,
                scheme.allSatisfy({
                    $0.isASCII
                        && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
                })
            else { return false }
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            let authorityAndPath = rest.dropFirst(2)
            let slash = authorityAndPath.firstIndex(of: "/") ?? authorityAndPath.endIndex
            guard isAuthority(authorityAndPath[..<slash]) else { return false }
            rest = authorityAndPath[slash...]
        }
        return rest.unicodeScalars.allSatisfy { $0 == "/" || isPathCharacter($0) }
    }

    /// `[userinfo@]host[:port]`.
    private static func isAuthority(_ authority: Substring) -> Bool {
        var hostAndPort = authority
        if let at = authority.firstIndex(of: "@") {
            guard authority[..<at].unicodeScalars.allSatisfy({ $0 == ":" || isUnreservedOrSubDelimiter($0) }) else {
                return false
            }
            hostAndPort = authority[authority.index(after: at)...]
        }
        var port: Substring = ""
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { return false }
            let literal = hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close].unicodeScalars
            let isIPv6 =
                !literal.isEmpty
                && literal.allSatisfy { $0.isASCII && ($0.properties.isASCIIHexDigit || $0 == ":" || $0 == ".") }
            let isFuture = literal.first == "v" || literal.first == "V"
            guard
                isIPv6 || (isFuture && literal.allSatisfy { $0 == ":" || isUnreservedOrSubDelimiter($0) && $0.isASCII })
            else { return false }
            let after = hostAndPort[hostAndPort.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { return false }
                port = after.dropFirst()
            }
        } else {
            var host = hostAndPort
            if let colon = hostAndPort.firstIndex(of: ":") {
                host = hostAndPort[..<colon]
                port = hostAndPort[hostAndPort.index(after: colon)...]
            }
            guard host.unicodeScalars.allSatisfy(isUnreservedOrSubDelimiter) else { return false }
        }
        return port.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
    }

    /// Every `%` is followed by two hex digits.
    private static func percentSignsAreEncodings(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() where scalar == "%" {
            guard index + 2 < scalars.count, scalars[index + 1].properties.isASCIIHexDigit,
                scalars[index + 2].properties.isASCIIHexDigit
            else { return false }
        }
        return true
    }

    /// unreserved, pct-encoded (its digits are checked apart) or sub-delims; outside ASCII, a
    /// character of an IRI.
    private static func isUnreservedOrSubDelimiter(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return !scalar.properties.isWhitespace }
        return scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
            || "-._~%!$&'()*+,;=".unicodeScalars.contains(scalar)
    }

    /// pchar: a path segment's character.
    private static func isPathCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar == ":" || scalar == "@" || isUnreservedOrSubDelimiter(scalar)
    }

    /// A query's or fragment's character: pchar, `/` or `?`.
    private static func isQueryCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "/" || scalar == "?" || isPathCharacter(scalar)
    }
}
