import Foundation
import PostgreSQLTestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// How a location is read before libpq gets it: a password written in a connection URL's
/// query under a percent-encoded name, or percent-encoded itself, never shows in a description
/// or an error, nor does one in a URL libpq cannot read; and a URL's scheme is read in any
/// case.
@Suite struct PostgreSQLConnectionInfoTests {
    /// The password the tests write into URLs.
    static let password = "Zz9secret"
    /// ``password`` with its `s` percent-encoded.
    static let encodedPassword = "Zz9%73ecret"

    /// Whether `text` shows the password, as written or decoded.
    static func showsPassword(_ text: String) -> Bool {
        text.contains(password) || text.contains(encodedPassword)
    }

    @Test func aPasswordUnderAPercentEncodedNameNeverShows() throws {
        for query in [
            "pass%77ord=\(Self.password)", "pass%77ord=\(Self.encodedPassword)",
            "%70%61%73%73%77%6F%72%64=\(Self.password)",
            "password=\(Self.encodedPassword)", "sslpass%77ord=\(Self.encodedPassword)",
        ] {
            let url = "postgresql://u@/db?host=/tmp/x&\(query)&sslmode=disable"
            let info = try PostgreSQLConnectionInfo(url)
            #expect(!Self.showsPassword(info.description), "\(query)")
            #expect(info.description == "postgresql host=/tmp/x dbname=db user=u sslmode=disable", "\(query)")
            #expect(info.value(of: "password") == nil, "\(query)")
            // A message quoting the location as it was written.
            let message = info.scrubbed("cannot use \(url): failed")
            #expect(!Self.showsPassword(message), "\(query): \(message)")
            #expect(message.contains("host=/tmp/x"), "\(query): \(message)")
        }
    }

    @Test func aURLLibpqCannotReadNeverShowsItsPassword() throws {
        for url in [
            // libpq repeats the whole URL.
            "postgresql://u@[::1/db?pass%77ord=\(Self.password)",
            "postgresql://u@[]/db?pass%77ord=\(Self.encodedPassword)",
            "postgresql://u@[]/db?password=\(Self.encodedPassword)",
            // libpq repeats the value it cannot decode.
            "postgresql://u@h/db?pass%77ord=\(Self.password)%zz",
            "postgresql://u@h/db?password=\(Self.password)%zz",
            "postgresql://u@h/db?password=\(Self.password)%00",
            "postgresql://u:\(Self.password)%zz@h/db",
            "postgresql://u:\(Self.encodedPassword)%zz@h/db",
        ] {
            let error = try #require(throws: WebRecordError.self, "\(url)") {
                _ = try PostgreSQLConnectionInfo(url)
            }
            #expect(error.code == .invalidArgument, "\(url)")
            #expect(error.message.hasPrefix("not a PostgreSQL connection URL or conninfo string: "), "\(url)")
            #expect(!Self.showsPassword(error.message), "\(url): \(error.message)")
            #expect(!Self.showsPassword(error.description), "\(url)")
            #expect(!Self.showsPassword(String(reflecting: error)), "\(url)")
        }
    }

    @Test func libpqRefusesAnUpperCaseNameAndTheErrorNamesOnlyTheName() throws {
        // libpq's names are lower case; it refuses any other case, so no password is used.
        for name in ["PASSWORD", "Password", "PASS%57ORD"] {
            let error = try #require(throws: WebRecordError.self, "\(name)") {
                _ = try PostgreSQLConnectionInfo("postgresql://u@h/db?\(name)=\(Self.password)")
            }
            #expect(error.code == .invalidArgument, "\(name)")
            #expect(error.message.contains("invalid URI query parameter"), "\(name): \(error.message)")
            #expect(!Self.showsPassword(error.message), "\(name): \(error.message)")
        }
    }

    @Test func connectingWithAPasswordUnderAPercentEncodedNameNeverShowsIt() throws {
        let server = try PostgreSQLTestServer.shared()
        for query in ["pass%77ord=\(Self.password)", "pass%77ord=\(Self.encodedPassword)"] {
            // The test server trusts local connections, so it takes any password.
            let connection = try PostgreSQLConnection(server.url(database: try server.makeDatabase()) + "?" + query)
            #expect(try connection.scalar("SELECT 1") == .integer(1))
            #expect(!Self.showsPassword(connection.description), "\(query)")
            #expect(!Self.showsPassword(String(reflecting: connection)), "\(query)")

            // A database that does not exist: the error names the server, not the password.
            let error = try #require(throws: WebRecordError.self, "\(query)") {
                _ = try PostgreSQLConnection(server.url(database: "no_such_database") + "?" + query)
            }
            #expect(error.code == .storeError, "\(query)")
            #expect(error.message.contains("no_such_database"), "\(query)")
            #expect(!Self.showsPassword(error.message), "\(query): \(error.message)")
            #expect(!Self.showsPassword(String(reflecting: error)), "\(query)")
        }
    }

    @Test func theSchemeIsLowerCasedAndNothingElse() throws {
        let info = try PostgreSQLConnectionInfo("POSTGRESQL://Worker@DB.example.com:6543/App?sslmode=require")
        #expect(info.text == "postgresql://Worker@DB.example.com:6543/App?sslmode=require")
        #expect(info.value(of: "host") == "DB.example.com")
        #expect(info.value(of: "dbname") == "App")
        #expect(info.value(of: "user") == "Worker")
        #expect(try PostgreSQLConnectionInfo("PostgreS://w@h/d").text == "postgres://w@h/d")
        // A conninfo string is left as it is, even with a URL inside a value.
        let conninfo = "host=h dbname='POSTGRESQL://x'"
        #expect(try PostgreSQLConnectionInfo(conninfo).text == conninfo)
    }

    @Test("a store opens on a URL whose scheme is in upper or mixed case")
    func aStoreOpensWithAnUpperCaseScheme() async throws {
        let schema = try PostgreSQLStores.shippedSchema("AppNet")
        let server = try PostgreSQLTestServer.shared()
        for scheme in ["POSTGRESQL", "PostgreS"] {
            let url = server.url(database: try server.makeDatabase())
            let prefix = "postgresql://"
            #expect(url.hasPrefix(prefix))
            let store = try RecordStore(postgreSQL: scheme + "://" + url.dropFirst(prefix.count), schema: schema)
            _ = try await store.populate(["data": [["id": "1", "text": "a"]]], entity: "Post")
            #expect(try store.count("Post") == 1, "\(scheme)")
        }
    }
}
