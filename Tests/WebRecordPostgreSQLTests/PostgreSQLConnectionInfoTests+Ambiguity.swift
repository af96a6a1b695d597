import Foundation
import PostgreSQLTestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// A password holding `@ / : ? # %` or a space, written unencoded in a connection URL or in a
/// conninfo string, never shows: a URL that libpq and a URL parser would read differently is
/// refused with a message saying to percent-encode, and what libpq reads as a password is
/// redacted wherever it could be printed.
@Suite struct PostgreSQLConnectionInfoAmbiguityTests {
    /// The two halves of the password the tests write, around the character under test.
    static let (head, tail) = ("Raw", "At9Secret")

    static func showsPassword(_ text: String) -> Bool {
        text.contains(tail) || text.contains(head + "@") || text.contains(head + "/")
    }

    /// URLs whose password holds a character libpq and URL parsers split at differently.
    static let ambiguousURLs: [(url: String, reason: String)] = [
        ("postgresql://postgres:\(head)@\(tail)@/nosuch", "its user information holds an '@'"),
        ("postgresql://postgres:\(head)@\(tail)@localhost:5432/nosuch", "its user information holds an '@'"),
        ("postgresql://postgres:\(head)/\(tail)@localhost/nosuch", "it has an '@' after a '/'"),
        ("postgresql://postgres:\(head)/\(tail)@/nosuch?host=/tmp", "it has an '@' after a '/'"),
        ("postgresql://postgres:\(head)?\(tail)@localhost/nosuch", "a '?' or '#' comes before the '@'"),
        ("postgresql://postgres:\(head)#\(tail)@localhost/nosuch", "a '?' or '#' comes before the '@'"),
        ("postgresql://postgres:\(head) \(tail)@localhost/nosuch", "it holds a space"),
        ("POSTGRES://postgres:\(head)@\(tail)@/nosuch", "its user information holds an '@'"),
    ]

    @Test(arguments: ambiguousURLs.map(\.url))
    func anAmbiguousURLIsRefusedWithoutItsPassword(url: String) throws {
        let reason = try #require(Self.ambiguousURLs.first { $0.url == url }?.reason)
        let error = try #require(throws: WebRecordError.self) { _ = try PostgreSQLConnectionInfo(url) }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("the PostgreSQL URL is ambiguous: \(reason)"), "\(error.message)")
        #expect(error.message.contains("'@' as %40, '/' as %2F"), "\(error.message)")
        #expect(!Self.showsPassword(error.description), "\(error.description)")
        #expect(!Self.showsPassword(String(reflecting: error)))
        // Wherever the location itself is printed, whole or in a message.
        #expect(!Self.showsPassword(Redaction.redacted(url: url)), "\(Redaction.redacted(url: url))")
        if !url.contains(" ") {
            // In free text a space ends a URL; a whole URL (above) is redacted with its spaces.
            #expect(
                !Self.showsPassword(Redaction.redacted("\(url): failed")), "\(Redaction.redacted("\(url): failed"))")
        }
    }

    @Test(arguments: ambiguousURLs.map(\.url))
    func aStoreOnAnAmbiguousURLFailsWithoutItsPassword(url: String) throws {
        let schema = try PostgreSQLStores.shippedSchema("AppNet")
        let error = try #require(throws: WebRecordError.self) { _ = try RecordStore(postgreSQL: url, schema: schema) }
        #expect(error.code == .invalidArgument)
        #expect(!Self.showsPassword(error.description), "\(error.description)")
    }

    /// The same passwords percent-encoded: read by libpq as written, and never shown.
    @Test(arguments: ["@", "/", ":", "?", "#", "%", " "])
    func anEncodedPasswordIsReadAndNeverShown(character: String) throws {
        let encoded = try #require(character.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let url = "postgresql://postgres:\(Self.head)\(encoded)\(Self.tail)@localhost:5/nosuch"
        let info = try PostgreSQLConnectionInfo(url)
        #expect(info.secrets.contains(Self.head + character + Self.tail), "libpq reads the password decoded")
        #expect(info.value(of: "host") == "localhost")
        #expect(info.value(of: "dbname") == "nosuch")
        #expect(!Self.showsPassword(info.description))
        #expect(!info.description.contains(Self.tail))
        #expect(!Redaction.redacted(url: url).contains(Self.tail), "\(Redaction.redacted(url: url))")
        #expect(!Redaction.redacted("cannot open \(url): refused").contains(Self.tail))
        #expect(!info.scrubbed("libpq said \(Self.head)\(character)\(Self.tail)").contains(Self.tail))
    }

    /// A `:` needs no encoding (the password starts after the first), and a lone `%` is
    /// refused by libpq, without the password.
    @Test func aColonIsPartOfThePasswordAndALonePercentIsRefusedWithoutIt() throws {
        let colon = try PostgreSQLConnectionInfo("postgresql://postgres:\(Self.head):\(Self.tail)@localhost/nosuch")
        #expect(colon.secrets.contains("\(Self.head):\(Self.tail)"))
        #expect(!colon.description.contains(Self.tail))
        #expect(
            !Redaction.redacted(url: "postgresql://postgres:\(Self.head):\(Self.tail)@localhost/nosuch").contains(
                Self.tail))

        let url = "postgresql://postgres:\(Self.head)%\(Self.tail)@localhost/nosuch"
        let error = try #require(throws: WebRecordError.self) { _ = try PostgreSQLConnectionInfo(url) }
        #expect(error.message.contains("invalid percent-encoded token"), "\(error.message)")
        #expect(!error.description.contains(Self.tail), "\(error.description)")
        #expect(!Redaction.redacted(url: url).contains(Self.tail))
    }

    /// In a conninfo string, a quoted password may hold anything; libpq reads it whole, and
    /// neither the description nor a message that quotes the string shows it.
    @Test(arguments: ["@", "/", ":", "?", "#", "%", " ", "\\'", "="])
    func aQuotedConninfoPasswordIsReadAndNeverShown(character: String) throws {
        let conninfo = "host=/tmp/nosuch dbname=nosuch password='\(Self.head)\(character)\(Self.tail)' user=postgres"
        let info = try PostgreSQLConnectionInfo(conninfo)
        let read = Self.head + (character == "\\'" ? "'" : character) + Self.tail
        #expect(info.secrets == [read])
        #expect(info.value(of: "user") == "postgres")
        #expect(!info.description.contains(Self.tail), "\(info.description)")
        let message = Redaction.redacted("cannot connect with \(conninfo)")
        #expect(!message.contains(Self.tail), "\(message)")
        #expect(message.contains("user=postgres"), "only the password goes: \(message)")
    }

    @Test func plainURLsAreNotRefused() throws {
        for url in [
            "postgresql://u:p@localhost:5432/db", "postgresql:///db?host=/tmp&user=a@b", "postgresql://u@h/db",
            "postgresql://h/db?password=a@b/c", "postgresql://[::1]:5432/db", "postgresql://",
        ] {
            #expect(throws: Never.self, "\(url)") { _ = try PostgreSQLConnectionInfo(url) }
        }
    }
}
