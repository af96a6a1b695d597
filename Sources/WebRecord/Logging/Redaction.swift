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
    /// `oauth_signature`, `X-Amz-Signature`, `X-Amz-Credential`, `session_token` and
    /// `private_token` (GitLab's parameter, beside its `Private-Token` header). `key` is
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

    /// A URL written as text, the whole text being the URL (a command-line argument, a
    /// connection URL), with its secrets redacted as ``redacted(_:)`` does, and its password
    /// found even when it holds spaces, which end a URL in free text.
    ///
    /// For example:
    ///
    /// ```swift
    /// Redaction.redacted(url: "postgresql://app:pa ss@db.example.com/app")
    /// // "postgresql://app:<redacted>@db.example.com/app"
    /// ```
    ///
    /// - Parameter url: the URL.
    /// - Returns: the URL with its password and secret parameters replaced by `<redacted>`.
    public static func redacted(url: String) -> String {
        guard let scheme = url.range(of: "://") else { return text(url) }
        let authority = url[scheme.upperBound...]
        guard let end = userInformationEnd(in: authority, endsAtWhitespace: false),
            let colon = authority[..<end].firstIndex(of: ":")
        else { return text(url) }
        return text(String(url[..<colon]) + ":" + placeholder + String(url[end...]))
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
        "private_token",
    ]

    /// The schemes whose URLs ``text(_:)`` reads with a user's password even when mistyped with
    /// one slash or none after the colon (`http:/user:pass@host`).
    static let mistypedSchemes: Set<String> = ["http", "https", "postgres", "postgresql", "ftp", "ws", "wss"]

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
    /// (in a URL's query or anywhere else; a value in single quotes, as libpq's conninfo writes
    /// it, to its closing quote) and the password of any `scheme://user:password@`, whatever
    /// it holds (see ``userInformationEnd(in:endsAtWhitespace:)``), or of a URL of one of
    /// ``mistypedSchemes`` written with one slash or none (`http:/user:password@`).
    ///
    /// This is the net under messages built from other text (a server's error, a URL written
    /// into a message); messages WebRecord builds redact their parts as they build them.
    static func text(_ text: String) -> String {
        guard text.contains("=") || text.contains("@") else { return text }
        var output = ""
        var rest = text[...]
        while let equals = rest.firstIndex(where: { $0 == "=" || $0 == "@" || $0 == ":" }) {
            let before = rest[..<equals]
            if rest[equals] == ":" {
                // A URL's user information may hold `@`, `/`, `?` or `#` (`u:p@ss@host`): its
                // password runs to the `@` that ends it, as URL parsers read it.
                output += before
                rest = rest[equals...]
                // `scheme://`, or a URL of a known scheme mistyped with one slash or none
                // (`http:/user:pass@host`), which a tool then takes for a file's path.
                let scheme = String(before.reversed().prefix { $0.isLetter }.reversed()).lowercased()
                let opening =
                    rest.hasPrefix("://")
                    ? 3 : mistypedSchemes.contains(scheme) ? (rest.hasPrefix(":/") ? 2 : 1) : 0
                if opening > 0, let end = userInformationEnd(in: rest.dropFirst(opening)),
                    let colon = rest.dropFirst(opening)[..<end].firstIndex(of: ":")
                {
                    let password = rest[rest.index(after: colon)..<end]
                    let kept = password == placeholder || password == encodedPlaceholder
                    output += String(rest[..<colon]) + ":" + (kept ? String(password) : placeholder) + "@"
                    rest = rest[rest.index(after: end)...]
                } else {
                    output.append(":")
                    rest = rest.dropFirst()
                }
                continue
            }
            if rest[equals] == "@" {
                output += before
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
            // A quoted value (libpq's `password='a b'`, with `\'` and `\\` escapes) runs to its
            // closing quote, whatever it holds.
            if rest.first == "'" {
                var index = rest.index(after: rest.startIndex)
                while index < rest.endIndex, rest[index] != "'" {
                    if rest[index] == "\\" { index = rest.index(after: index) }
                    if index < rest.endIndex { index = rest.index(after: index) }
                }
                output += placeholder
                rest = index < rest.endIndex ? rest[rest.index(after: index)...] : rest[rest.endIndex...]
                continue
            }
            let end = rest.firstIndex { isValueDelimiter($0) } ?? rest.endIndex
            let value = rest[..<end]
            if !value.isEmpty, !value.hasPrefix(placeholder), !value.hasPrefix(encodedPlaceholder) {
                output += placeholder
                rest = rest[end...]
            }
        }
        return output + rest
    }

    /// Where the user information of a URL ends (the `@` before its host), in `authority`, the
    /// text after its `scheme://`; nil when it has none.
    ///
    /// The URL runs to the first whitespace (unless `endsAtWhitespace` is false). Its user information ends at the last `@` before
    /// the first `?` or `#` (a parser splits there, so `u:p@ss@host` has the password `p@ss`,
    /// and `u:pa/ss@host` the password `pa/ss`); when none comes before them, at the first
    /// `@` with no `/` before it (libpq reads `u:p?ss@host` so). A `@` in a path after a
    /// host and port (`host:8080/@user`) may thus be taken for the end of a password, which
    /// redacts more than needed, never less.
    static func userInformationEnd(in authority: Substring, endsAtWhitespace: Bool = true) -> Substring.Index? {
        let url = endsAtWhitespace ? authority.prefix(while: { !$0.isWhitespace }) : authority
        let query = url.firstIndex { $0 == "?" || $0 == "#" } ?? url.endIndex
        if let last = url[..<query].lastIndex(of: "@") { return last }
        guard let first = url.firstIndex(where: { $0 == "@" || $0 == "/" }), url[first] == "@" else { return nil }
        return first
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

    /// `value` with each of `secrets` taken out of its strings, at any depth (a secret member's
    /// value is redacted whole, as ``json(_:)`` does).
    static func scrubbing(_ value: JSONValue, secrets: [String]) -> JSONValue {
        switch value {
        case .string(let text): .string(scrubbing(text, secrets: secrets))
        case .number(let text): scrubbing(text, secrets: secrets) == text ? value : .string(placeholder)
        case .object(let object):
            .object(
                JSONObject(
                    object.map {
                        (
                            key: $0.key,
                            value: isSecret($0.key) ? .string(placeholder) : scrubbing($0.value, secrets: secrets)
                        )
                    }))
        case .array(let elements): .array(elements.map { scrubbing($0, secrets: secrets) })
        case .null, .bool, .integer, .double: value
        }
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
            if let password = components.password {
                values.append(password)
                // The transport sends the URL's user and password as Basic credentials, which a
                // server may echo (decoded, they are the password again).
                let credentials = Data("\(components.user ?? ""):\(password)".utf8).base64EncodedString()
                values.append(credentials)
                if let user = components.percentEncodedUser, let encoded = components.percentEncodedPassword,
                    user != components.user || encoded != password
                {
                    values.append(Data("\(user):\(encoded)".utf8).base64EncodedString())
                }
            }
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
