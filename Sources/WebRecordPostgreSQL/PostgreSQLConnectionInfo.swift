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
package struct PostgreSQLConnectionInfo: Sendable, CustomStringConvertible {
    /// The text as given, with its password if it has one: only libpq reads it.
    let text: String
    /// The settings the text gives, by libpq's keyword: `host`, `hostaddr`, `port`, `dbname`
    /// and `user` first, then the others (`sslmode`, ...) in libpq's order; without the
    /// password and other secret settings.
    package let settings: [(keyword: String, value: String)]
    /// The secret values the text gives (its password), to take out of any message libpq writes.
    let secrets: [String]

    /// Reads `text` as libpq does.
    ///
    /// - Throws: `invalidArgument` when libpq cannot read it, with libpq's reason (the text
    ///   itself is not repeated, as it may hold a password).
    package init(_ text: String) throws(WebRecordError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &errorMessage) else {
            let reason = errorMessage.map { String(cString: $0) } ?? "out of memory"
            if let errorMessage { PQfreemem(errorMessage) }
            throw WebRecordError(
                .invalidArgument,
                "not a PostgreSQL connection URL or conninfo string: "
                    + Redaction.redacted(reason.trimmingCharacters(in: .whitespacesAndNewlines)))
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
        self.secrets = secrets
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
        var result = message
        for secret in secrets.sorted(by: { $0.count > $1.count }) {
            result = result.replacingOccurrences(of: secret, with: "<redacted>")
        }
        return Redaction.redacted(result)
    }

    /// A conninfo value, single-quoted when it is empty or holds a space, a quote or a backslash.
    private static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "'" || $0 == "\\" }) else { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
