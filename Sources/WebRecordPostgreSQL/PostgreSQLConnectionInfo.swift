import Foundation
import WebRecord
internal import WebRecordLibPQ

/// Where a ``PostgreSQLConnection`` connects: a connection URL
/// (`postgresql://user@host:port/db?sslmode=require`) or a libpq conninfo string
/// (`host=/run/postgresql dbname=app`), as libpq reads it.
///
/// libpq fills in what the text leaves out from its environment variables (`PGHOST`,
/// `PGUSER`, `PGPASSWORD`, ...) and finds a password in `~/.pgpass`, so a password need not
/// be written in the URL. Its ``description`` lists the settings the text gives, never a
/// password.
package struct PostgreSQLConnectionInfo: Sendable, CustomStringConvertible, CustomReflectable {
    /// The text as given (a URL's scheme in lower case), with its password if it has one: only
    /// libpq reads it.
    let text: String
    /// The settings the text gives, by libpq's keyword: `host`, `hostaddr`, `port`, `dbname`
    /// and `user` first, then the others (`sslmode`, ...) in libpq's order; without the
    /// password and other secret settings.
    package let settings: [(keyword: String, value: String)]
    /// The secret values the text gives (its password), as libpq reads them and, in a URL, as
    /// they are written: to take out of any message libpq writes.
    let secrets: [String]

    /// Its ``description`` alone: what `dump`, a debugger or a logger reflecting over a store
    /// shows, never the text or its secrets.
    package var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }

    /// Reads `location` as libpq does, its URL scheme in any case (`POSTGRESQL://` is read as
    /// `postgresql://`, which is all libpq knows).
    ///
    /// - Throws: `invalidArgument` when libpq cannot read it, with libpq's reason, without the
    ///   password libpq may repeat in it (an unreadable URL, a value it cannot decode).
    package init(_ location: String) throws(WebRecordError) {
        let text = Self.lowerCasingScheme(location)
        if let ambiguity = Self.ambiguity(in: text) {
            throw WebRecordError(
                .invalidArgument,
                "the PostgreSQL URL is ambiguous: \(ambiguity), so libpq and a URL parser would read its user, "
                    + "password or database differently. Percent-encode these characters in a user name, password "
                    + "or database name: '@' as %40, '/' as %2F, '?' as %3F, '#' as %23 and a space as %20")
        }
        let written = Self.writtenSecrets(in: text)
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &errorMessage) else {
            let reason = errorMessage.map { String(cString: $0) } ?? "out of memory"
            if let errorMessage { PQfreemem(errorMessage) }
            throw WebRecordError(
                .invalidArgument,
                "not a PostgreSQL connection URL or conninfo string: "
                    + Self.scrubbed(reason.trimmingCharacters(in: .whitespacesAndNewlines), secrets: written))
        }
        defer { PQconninfoFree(options) }
        var settings: [(String, String)] = []
        var secrets: [String] = []
        var option = options
        while let keyword = option.pointee.keyword {
            defer { option += 1 }
            guard let value = option.pointee.val else { continue }
            let name = String(cString: keyword)
            let text = String(cString: value)
            // libpq marks its password settings with the display character "*".
            let isSecret = option.pointee.dispchar.map { String(cString: $0) == "*" } ?? false
            if isSecret || name == "password" {
                if !text.isEmpty { secrets.append(text) }
            } else {
                settings.append((name, text))
            }
        }
        let leading = ["host", "hostaddr", "port", "dbname", "user"]
        func rank(_ keyword: String) -> Int { leading.firstIndex(of: keyword) ?? leading.count }
        self.text = text
        self.settings = settings.enumerated().sorted {
            (rank($0.element.0), $0.offset) < (rank($1.element.0), $1.offset)
        }
        .map(\.element)
        self.secrets = secrets + written.filter { !secrets.contains($0) }
    }

    /// `location` with its URL scheme in lower case when it is `postgresql` or `postgres` in
    /// another case (a scheme is read in any case; libpq reads only a lower-case one), the rest
    /// as it is; any other location as it is.
    private static func lowerCasingScheme(_ location: String) -> String {
        guard let separator = location.range(of: "://") else { return location }
        let scheme = location[..<separator.lowerBound]
        guard scheme.allSatisfy(\.isASCII), ["postgresql", "postgres"].contains(scheme.lowercased()) else {
            return location
        }
        return scheme.lowercased() + location[separator.lowerBound...]
    }

    /// Why a connection URL would be read one way by libpq and another by a URL parser (and by
    /// the redaction of messages), or nil when it is plain or a conninfo string.
    ///
    /// libpq ends a URL's user information at its first `@` before any `/`, where a URL parser
    /// ends it at the `@` before the first `/`, `?` or `#`: an unencoded `@`, `/`, `?` or `#`
    /// in a password is read differently by the two, and a space ends a URL in free text. So
    /// a URL is refused when its authority holds two `@`, when a `@` follows a `/` outside the
    /// query (a password holding `/`), when a `?` or `#` comes before its `@`, or when it holds
    /// whitespace.
    static func ambiguity(in text: String) -> String? {
        guard let scheme = text.range(of: "://"),
            ["postgresql", "postgres"].contains(text[..<scheme.lowerBound].lowercased())
        else { return nil }
        let rest = text[scheme.upperBound...]
        if rest.contains(where: \.isWhitespace) { return "it holds a space or other whitespace" }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if authority.filter({ $0 == "@" }).count > 1 { return "its user information holds an '@'" }
        if !authority.contains("@"), let at = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[at] == "@" {
            return "a '?' or '#' comes before the '@' that ends its user information"
        }
        if rest[authorityEnd...].prefix(while: { $0 != "?" }).contains("@") {
            return "it has an '@' after a '/' (a password or user name holding '/', or a database name holding '@')"
        }
        return nil
    }

    /// The value of the setting `keyword` the text gives, if any (never a password).
    package func value(of keyword: String) -> String? {
        settings.first { $0.keyword == keyword }?.value
    }

    /// `postgresql host=... port=... dbname=... user=...`: the settings the text gives, in
    /// libpq's conninfo form, without the password.
    package var description: String {
        let given = settings.map { "\($0.keyword)=\(Self.quoted($0.value))" }
        return given.isEmpty ? "postgresql (libpq defaults)" : "postgresql " + given.joined(separator: " ")
    }

    /// `message` with every secret of the text replaced by `<redacted>`, then redacted as
    /// WebRecord redacts any message.
    func scrubbed(_ message: String) -> String {
        Self.scrubbed(message, secrets: secrets)
    }

    /// `message` with every one of `secrets` replaced by `<redacted>`, the longest first, then
    /// redacted as WebRecord redacts any message.
    private static func scrubbed(_ message: String, secrets: [String]) -> String {
        var result = message
        for secret in secrets.sorted(by: { $0.count > $1.count }) {
            result = result.replacingOccurrences(of: secret, with: "<redacted>")
        }
        return Redaction.redacted(result)
    }

    /// libpq's keywords whose values are secret: `password`, and every other one libpq displays
    /// as `*` (`sslpassword`).
    private static let secretKeywords: Set<String> = {
        var keywords: Set<String> = ["password"]
        var errorMessage: UnsafeMutablePointer<CChar>?
        // The empty text gives every option libpq knows, with none set.
        guard let options = PQconninfoParse("", &errorMessage) else {
            if let errorMessage { PQfreemem(errorMessage) }
            return keywords
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            defer { option += 1 }
            if option.pointee.dispchar.map({ String(cString: $0) == "*" }) ?? false {
                keywords.insert(String(cString: keyword))
            }
        }
        return keywords
    }()

    /// The secret values a connection URL writes, as written and percent-decoded: the password
    /// of its user information (`user:password@`), and the value of each query parameter whose
    /// name, percent-decoded (`pass%77ord`) and in any case, is one of ``secretKeywords``.
    /// libpq repeats the URL, or a value it cannot decode, in its reason for not reading it.
    ///
    /// None for a conninfo string (`password=...`): libpq repeats none of its values.
    private static func writtenSecrets(in text: String) -> [String] {
        guard let scheme = text.range(of: "://"),
            ["postgresql", "postgres"].contains(text[..<scheme.lowerBound].lowercased())
        else { return [] }
        var values: [Substring] = []
        // As libpq reads a URL: the user information ends at the first `@` before any `/`, its
        // password after its first `:`; the query starts at the first `?` after it.
        var rest = text[scheme.upperBound...]
        if let at = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[at] == "@" {
            let userInformation = rest[..<at]
            if let colon = userInformation.firstIndex(of: ":") {
                values.append(userInformation[userInformation.index(after: colon)...])
            }
            rest = rest[rest.index(after: at)...]
        }
        if let question = rest.firstIndex(of: "?") {
            for parameter in rest[rest.index(after: question)...].split(separator: "&") {
                guard let equals = parameter.firstIndex(of: "=") else { continue }
                let name = parameter[..<equals]
                let decodedName = (name.removingPercentEncoding ?? String(name)).lowercased()
                if secretKeywords.contains(decodedName) {
                    values.append(parameter[parameter.index(after: equals)...])
                }
            }
        }
        var secrets: [String] = []
        for value in values where !value.isEmpty {
            secrets.append(String(value))
            if let decoded = value.removingPercentEncoding, !decoded.isEmpty, decoded != value {
                secrets.append(decoded)
            }
        }
        return secrets
    }

    /// A conninfo value, single-quoted when it is empty or holds a space, a quote or a backslash.
    private static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "'" || $0 == "\\" }) else { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
