import Foundation

/// How WebRecord takes secrets out of what it shows: logs, error messages, and the
/// `description`, `debugDescription` and `dump` output of requests, responses, results,
/// servers and errors.
///
/// A header, query or fragment parameter, or JSON member is secret when its name is, ignoring
/// case: `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` always, and the
/// names in ``secretNames``. A URL's password (`https://user:pass@host`) is always secret.
/// Each secret value is replaced by `<redacted>` (percent-encoded inside a URL).
///
/// For example:
///
/// ```swift
/// Redaction.secretNames.insert("key")
/// Redaction.redacted("https://api.example.com/search?key=abc&q=swift")
/// // "https://api.example.com/search?key=<redacted>&q=swift"
/// ```
public enum Redaction {
    /// The names of headers, query parameters and JSON members whose values are secret,
    /// compared ignoring case (they are kept lower-cased).
    ///
    /// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` are redacted whatever
    /// this set holds, and so is a URL's password.
    ///
    /// The default holds the usual names: the headers `X-Api-Key`, `X-Auth-Token`,
    /// `X-Access-Token`, `X-CSRF-Token`, `X-XSRF-Token`, `X-Amz-Security-Token`, `Private-Token`
    /// and `X-Goog-Api-Key`, and the parameters `access_token`, `refresh_token`, `id_token`,
    /// `client_secret`, `api_key`, `apikey`, `api-key`, `token`, `auth`, `auth_token`,
    /// `password`, `passwd`, `secret`, `signature`, `sig`, `oauth_token`, `oauth_token_secret`,
    /// `oauth_signature`, `X-Amz-Signature`, `X-Amz-Credential` and `session_token`. `key` is
    /// not among them: it names ordinary data too often (a Jira issue's `key`); add it for an
    /// API that takes its key as `?key=`.
    ///
    /// The setting is global. For example:
    ///
    /// ```swift
    /// Redaction.secretNames.insert("key")
    /// ```
    public static var secretNames: Set<String> {
        get { secretNamesState.withLock { $0 } }
        set { secretNamesState.withLock { $0 = Set(newValue.map { $0.lowercased() }) } }
    }

    private static let secretNamesState = Locked<Set<String>>(defaultSecretNames)

    /// Text with its secrets redacted the way WebRecord redacts its own messages: a URL's
    /// password, and every `name=value` pair whose name is secret (see ``secretNames``), in a
    /// URL's query or anywhere else.
    ///
    /// For example:
    ///
    /// ```swift
    /// Redaction.redacted("https://me:pw@api.example.com/posts?access_token=abc&count=20")
    /// // "https://me:<redacted>@api.example.com/posts?access_token=<redacted>&count=20"
    /// ```
    ///
    /// - Parameter text: a URL, a URN or any message.
    /// - Returns: the text with each secret value replaced by `<redacted>`.
    public static func redacted(_ text: String) -> String {
        self.text(text)
    }

    /// What a secret value is replaced with.
    static let placeholder = "<redacted>"
    /// ``placeholder`` as it appears inside a URL.
    static let encodedPlaceholder = "%3Credacted%3E"

    /// Headers that are secret whatever ``secretNames`` holds.
    static let alwaysSecretNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// The default of ``secretNames``: the usual secret headers and parameters.
    static let defaultSecretNames: Set<String> = [
        // Headers.
        "x-api-key", "x-auth-token", "x-access-token", "x-csrf-token", "x-xsrf-token", "x-amz-security-token",
        "private-token", "x-goog-api-key",
        // Query parameters and JSON members.
        "access_token", "refresh_token", "id_token", "client_secret", "api_key", "apikey", "api-key", "token",
        "auth", "auth_token", "password", "passwd", "secret", "signature", "sig", "oauth_token",
        "oauth_token_secret", "oauth_signature", "x-amz-signature", "x-amz-credential", "session_token",
    ]

    /// Secret values shorter than this are not searched for in free text (see ``scrubbing(_:secrets:)``).
    static let shortestScrubbedSecret = 4

    /// Whether `name` (a header, parameter or member name) holds a secret, ignoring case.
    static func isSecret(_ name: String) -> Bool {
        let lower = name.lowercased()
        return alwaysSecretNames.contains(lower) || secretNames.contains(lower)
    }

    // MARK: - URLs

    /// The URL with its password and the values of secret query and fragment parameters replaced.
    static func url(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return text(url.absoluteString)
        }
        if components.password != nil { components.percentEncodedPassword = encodedPlaceholder }
        if let query = components.percentEncodedQuery, !query.isEmpty {
            components.percentEncodedQuery = parameters(query, replacement: encodedPlaceholder)
        }
        if let fragment = components.percentEncodedFragment, !fragment.isEmpty {
            components.percentEncodedFragment = parameters(fragment, replacement: encodedPlaceholder)
        }
        return components.string ?? text(url.absoluteString)
    }

    /// A URN (a path with an optional query, or a full URL) with its secrets replaced.
    static func urn(_ urn: String) -> String {
        let lowered = urn.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let url = URL(string: urn) {
            return self.url(url)
        }
        guard let start = urn.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return urn }
        return String(urn[...start]) + parameters(urn[urn.index(after: start)...], replacement: placeholder)
    }

    /// `name=value&...` with the values of secret names replaced; the separators `&`, `;` and
    /// `#` are kept.
    private static func parameters(_ text: Substring, replacement: String) -> String {
        var output = ""
        var pair = ""
        func flush() {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            if parts.count > 1, isSecret(name.removingPercentEncoding ?? name) {
                output += name + "=" + replacement
            } else {
                output += pair
            }
            pair = ""
        }
        for character in text {
            if character == "&" || character == ";" || character == "#" {
                flush()
                output.append(character)
            } else {
                pair.append(character)
            }
        }
        flush()
        return output
    }

    private static func parameters(_ text: String, replacement: String) -> String {
        parameters(text[...], replacement: replacement)
    }

    // MARK: - Headers and bodies

    /// The headers with the values of secret ones replaced.
    static func headers(_ headers: [String: String]) -> [String: String] {
        headers.reduce(into: [:]) { result, header in
            result[header.key] = isSecret(header.key) ? placeholder : text(header.value)
        }
    }

    /// The headers as one line, `Name: value; ...`, sorted by name, secrets redacted.
    static func headerLine(_ headers: [String: String]) -> String {
        let redacted = self.headers(headers)
        return redacted.keys.sorted { $0.lowercased() < $1.lowercased() }.map { "\($0): \(redacted[$0] ?? "")" }
            .joined(separator: "; ")
    }

    /// The value with every member whose name is secret replaced, at any depth.
    static func json(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var result = JSONObject()
            for (name, member) in object {
                result[name] = isSecret(name) ? .string(placeholder) : json(member)
            }
            return .object(result)
        case .array(let elements):
            return .array(elements.map(json))
        default:
            return value
        }
    }

    /// ``json(_:)`` of an optional value.
    static func json(_ value: JSONValue?) -> JSONValue? {
        value.map { json($0) }
    }

    /// A body for the log: its JSON with secrets redacted, at most 500 characters, or its size.
    static func bodyLine(_ body: Data?) -> String? {
        guard let body, !body.isEmpty else { return nil }
        guard let value = try? JSONReader().read(body) else { return "\(body.count) bytes" }
        let text = json(value).serialized()
        return text.count <= 500 ? text : String(text.prefix(497)) + "..."
    }

    // MARK: - Free text

    /// Text with the secrets it may carry replaced: a `name=value` pair whose name is secret
    /// (in a URL's query or anywhere else) and the password of any `scheme://user:password@`.
    ///
    /// This is the net under messages built from other text (a server's error, a URL written
    /// into a message); messages WebRecord builds redact their parts as they build them.
    static func text(_ text: String) -> String {
        guard text.contains("=") || text.contains("@") else { return text }
        var output = ""
        var rest = text[...]
        while let equals = rest.firstIndex(where: { $0 == "=" || $0 == "@" }) {
            let before = rest[..<equals]
            if rest[equals] == "@" {
                output += redactingPassword(before)
                output.append("@")
                rest = rest[rest.index(after: equals)...]
                continue
            }
            output += before
            output.append("=")
            rest = rest[rest.index(after: equals)...]
            let name = String(before.reversed().prefix { isNameCharacter($0) }.reversed())
            // A name may be percent-encoded (`pass%77ord`), as a URL's query allows.
            guard !name.isEmpty, isSecret(name.removingPercentEncoding ?? name) else { continue }
            let end = rest.firstIndex { isValueDelimiter($0) } ?? rest.endIndex
            let value = rest[..<end]
            if !value.isEmpty, !value.hasPrefix(placeholder), !value.hasPrefix(encodedPlaceholder) {
                output += placeholder
                rest = rest[end...]
            }
        }
        return output + rest
    }

    /// `…scheme://user:password` (the text before an `@`) with the password replaced.
    private static func redactingPassword(_ text: Substring) -> String {
        guard let scheme = text.range(of: "://", options: .backwards) else { return String(text) }
        let userinfo = text[scheme.upperBound...]
        guard let colon = userinfo.firstIndex(of: ":"), !userinfo.contains(where: { $0 == "/" || $0.isWhitespace })
        else {
            return String(text)
        }
        return String(text[..<colon]) + ":" + placeholder
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "-" || character == "."
            || character == "%"
    }

    private static func isValueDelimiter(_ character: Character) -> Bool {
        character.isWhitespace || "&;#'\"<>,)]}".contains(character)
    }

    /// Text with each of `secrets` (a header's or parameter's value, met verbatim in a server's
    /// answer, say) replaced; values shorter than ``shortestScrubbedSecret`` are left alone, as
    /// they would match ordinary words. Then ``text(_:)``.
    static func scrubbing(_ text: String, secrets: [String]) -> String {
        var result = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) where secret.count >= shortestScrubbedSecret {
            result = result.replacingOccurrences(of: secret, with: placeholder)
        }
        return self.text(result)
    }

    /// The secret values a request carries, as they could come back in a server's answer: each
    /// secret header's value and its words but the scheme (`token abc` gives `token abc` and
    /// `abc`), each secret query parameter's value (encoded and decoded), and the URL's password.
    static func secretValues(headers: [String: String], url: URL?) -> [String] {
        var values: [String] = []
        for (name, value) in headers where isSecret(name) {
            values.append(value)
            let words = value.split(whereSeparator: { $0.isWhitespace || $0 == "," }).map(String.init)
            values += words.count > 1 ? words.dropFirst() : words[...]
        }
        if let url, let components = URLComponents(url: url, resolvingAgainstBaseURL: true) {
            if let password = components.password { values.append(password) }
            for item in components.queryItems ?? [] where isSecret(item.name) {
                guard let value = item.value else { continue }
                values.append(value)
                if let encoded = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) {
                    values.append(encoded)
                }
            }
        }
        return values.filter { !$0.isEmpty }
    }
}
