import Foundation
import PostgreSQLTestSupport
import TestSupport
import Testing

@testable import WebRecord
@testable import WebRecordPostgreSQL

/// SQLite's `?` placeholders numbered for PostgreSQL: a `?` becomes `$1`, `$2`, ... where
/// PostgreSQL reads SQL, and stays a `?` inside every quoted form PostgreSQL knows and inside
/// comments.
@Suite struct PostgreSQLPlaceholdersTests {
    /// `text` numbered from 1.
    static func numbered(_ text: String) -> String {
        PostgreSQLPlaceholders.numbered(text, from: 1)
    }

    @Test func placeholdersAreNumberedInOrderFromTheFirstNumber() {
        #expect(Self.numbered("a = ? AND b = ?") == "a = $1 AND b = $2")
        #expect(PostgreSQLPlaceholders.numbered("a = ? OR b IN (?, ?)", from: 2) == "a = $2 OR b IN ($3, $4)")
        #expect(Self.numbered("no placeholder") == "no placeholder")
        #expect(Self.numbered("") == "")
        #expect(Self.numbered("a??b") == "a$1$2b")
    }

    @Test func singleQuotedStringsAndDoubledQuotes() {
        #expect(Self.numbered("a = '?' AND b = ?") == "a = '?' AND b = $1")
        #expect(Self.numbered("a = 'it''s ?' AND b = ?") == "a = 'it''s ?' AND b = $1")
        #expect(Self.numbered("a = '''?''' AND b = ?") == "a = '''?''' AND b = $1")
        #expect(Self.numbered("a = '' AND b = ?") == "a = '' AND b = $1")
        // Standard strings: a backslash is an ordinary character.
        #expect(Self.numbered(#"a = '\' AND b = ?"#) == #"a = '\' AND b = $1"#)
        // Bit, hexadecimal, national and Unicode strings quote as a standard string does.
        #expect(Self.numbered("B'?' X'?' N'?' U&'?' = ?") == "B'?' X'?' N'?' U&'?' = $1")
    }

    @Test func doubleQuotedIdentifiersAndDoubledQuotes() {
        #expect(Self.numbered(#""a?" = ?"#) == #""a?" = $1"#)
        #expect(Self.numbered(#""a""?" = ?"#) == #""a""?" = $1"#)
        #expect(Self.numbered(#""it's?" = ?"#) == #""it's?" = $1"#)
        #expect(Self.numbered(#"'say "?"' = ?"#) == #"'say "?"' = $1"#)
    }

    @Test func escapeStringsTakeABackslashAsAnEscape() {
        #expect(Self.numbered(#"a = E'\'?' AND b = ?"#) == #"a = E'\'?' AND b = $1"#)
        #expect(Self.numbered(#"a = e'\'?' AND b = ?"#) == #"a = e'\'?' AND b = $1"#)
        #expect(Self.numbered(#"a = E'\\' AND b = ?"#) == #"a = E'\\' AND b = $1"#)
        #expect(Self.numbered(#"a = E'it''s \' ?' AND b = ?"#) == #"a = E'it''s \' ?' AND b = $1"#)
        // An E ending a longer word is part of that word: the string after it is a standard one.
        #expect(Self.numbered(#"a = typee'\' AND b = ?"#) == #"a = typee'\' AND b = $1"#)
    }

    @Test func aStringContinuedOnTheNextLineKeepsItsKind() {
        // PostgreSQL joins quoted strings separated by whitespace holding a line end.
        #expect(Self.numbered("a = E'x'\n'\\'?' AND b = ?") == "a = E'x'\n'\\'?' AND b = $1")
        #expect(Self.numbered("a = E'x' -- note\n  '\\'?' AND b = ?") == "a = E'x' -- note\n  '\\'?' AND b = $1")
        // Without a line end, they are two strings, and the second is a standard one.
        #expect(Self.numbered("a = E'x' '\\' AND b = ?") == "a = E'x' '\\' AND b = $1")
    }

    @Test func dollarQuotedStrings() {
        #expect(Self.numbered("text <> $$?$$ AND id = ?") == "text <> $$?$$ AND id = $1")
        #expect(Self.numbered("a = $tag$?'\"$$?$tag$ AND b = ?") == "a = $tag$?'\"$$?$tag$ AND b = $1")
        #expect(Self.numbered("a = $_t1$?$_t1$ AND b = ?") == "a = $_t1$?$_t1$ AND b = $1")
        // Tags are compared exactly: another tag, or another case, does not end the string.
        #expect(Self.numbered("a = $a$ $b$ ? $A$ ? $a$ AND b = ?") == "a = $a$ $b$ ? $A$ ? $a$ AND b = $1")
        #expect(Self.numbered("a = $é$?$é$ AND b = ?") == "a = $é$?$é$ AND b = $1")
    }

    @Test func aDollarThatStartsNoDollarQuote() {
        // `$1` is a parameter, not a tag: a tag cannot start with a digit.
        #expect(PostgreSQLPlaceholders.numbered("a = $1 AND b = ?", from: 2) == "a = $1 AND b = $2")
        #expect(PostgreSQLPlaceholders.numbered("a = $1$ AND b = ?", from: 2) == "a = $1$ AND b = $2")
        // A `$` inside a word belongs to the word.
        #expect(Self.numbered("a$$ = ? AND b$ = ?") == "a$$ = $1 AND b$ = $2")
        // A `$` with no closing `$` after its tag is a lone `$`.
        #expect(Self.numbered("$a = ?") == "$a = $1")
    }

    @Test func lineComments() {
        #expect(Self.numbered("a = ? -- why?\nAND b = ?") == "a = $1 -- why?\nAND b = $2")
        #expect(Self.numbered("a = ? -- why?\rAND b = ?") == "a = $1 -- why?\rAND b = $2")
        #expect(Self.numbered("a = ? -- why? 'no") == "a = $1 -- why? 'no")
        #expect(Self.numbered("a = 1 --- ?\nAND b = ?") == "a = 1 --- ?\nAND b = $1")
        // A single `-` starts nothing.
        #expect(Self.numbered("a = -? AND b = ?") == "a = -$1 AND b = $2")
    }

    @Test func blockCommentsNest() {
        #expect(Self.numbered("a = ? /* why? */ AND b = ?") == "a = $1 /* why? */ AND b = $2")
        #expect(
            Self.numbered("a = ? /* outer /* inner? */ still? */ AND b = ?")
                == "a = $1 /* outer /* inner? */ still? */ AND b = $2")
        #expect(Self.numbered("a = ? /* 'quote? */ AND b = ?") == "a = $1 /* 'quote? */ AND b = $2")
        #expect(Self.numbered("a = ? /** ? **/ AND b = ?") == "a = $1 /** ? **/ AND b = $2")
        // Quotes inside a string do not start a comment, nor a comment inside a string.
        #expect(Self.numbered("a = '/*' AND b = ? AND c = '*/'") == "a = '/*' AND b = $1 AND c = '*/'")
    }

    @Test func whatIsNotClosedIsLeftAsItIs() {
        #expect(Self.numbered("a = ? AND b = 'open ?") == "a = $1 AND b = 'open ?")
        #expect(Self.numbered(#"a = ? AND b = E'open \' ?"#) == #"a = $1 AND b = E'open \' ?"#)
        #expect(Self.numbered("a = ? AND \"open ?") == "a = $1 AND \"open ?")
        #expect(Self.numbered("a = ? AND b = $t$open ?") == "a = $1 AND b = $t$open ?")
        #expect(Self.numbered("a = ? /* open /* */ ?") == "a = $1 /* open /* */ ?")
    }

    @Test(arguments: [
        "user = ?", "USER=?", "\"text\" = ? AND user = ?", "(user)", "current_user = ?", "session_user = 'x'",
        "user", "a = ? or\nuser\n= ?", "-- by author.\nuser = ?", "/* a. */ user = ?", "x = 1. AND user = ?",
    ])
    func anUnquotedSessionWordIsRefused(predicate: String) throws {
        let error = try #require(throws: WebRecordError.self) {
            try PostgreSQLPlaceholders.numberedForBothStores(predicate, from: 1)
        }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("(quoted) for the column"), "\(error)")
    }

    @Test(arguments: [
        ("\"user\" = ?", "\"user\" = $1"), ("'user' = text", "'user' = text"), ("t.user = ?", "t.user = $1"),
        ("t . user = ?", "t . user = $1"), ("t./*c*/user = ?", "t./*c*/user = $1"),
        ("t.\r\nuser = ?", "t.\r\nuser = $1"),
        ("username = ?", "username = $1"), ("user_id = ?", "user_id = $1"), ("myuser = ?", "myuser = $1"),
        ("-- user\nid = ?", "-- user\nid = $1"), ("/* user */ id = ?", "/* user */ id = $1"),
        ("$$user$$ = text", "$$user$$ = text"), ("E'user' = text", "E'user' = text"),
    ])
    func aSessionWordQuotedOrPartOfAnotherIsNot(predicate: String, numbered: String) throws {
        #expect(try PostgreSQLPlaceholders.numberedForBothStores(predicate, from: 1) == numbered)
    }

    @Test func anUnquotedLikeIgnoresCaseAsOnSQLite() throws {
        #expect(
            try PostgreSQLPlaceholders.numberedForBothStores(
                "text LIKE ? AND t.like = 'like' AND \"like\" not like ? -- like", from: 1)
                == "text ILIKE $1 ESCAPE '' AND t.like = 'like' AND \"like\" not Ilike $2 ESCAPE '' -- like")
        #expect(
            try PostgreSQLPlaceholders.numberedForBothStores("a ILIKE ? OR b ~~ ?", from: 1) == "a ILIKE $1 OR b ~~ $2")
        // After a comment that ends with a dot, LIKE is still the operator.
        #expect(
            try PostgreSQLPlaceholders.numberedForBothStores("-- case.\ntext LIKE ?", from: 1)
                == "-- case.\ntext ILIKE $1 ESCAPE ''")
        // SQLite's LIKE has no escape character: the pattern, wherever it ends, gets ESCAPE '',
        // unless the condition gives its own.
        for (predicate, numbered) in [
            ("s LIKE '%' || ? || '%' OR n = 1", "s ILIKE '%' || $1 || '%' ESCAPE '' OR n = 1"),
            ("(s LIKE ?) AND (t NOT LIKE lower(?))", "(s ILIKE $1 ESCAPE '') AND (t NOT ILIKE lower($2) ESCAPE '')"),
            ("s LIKE ? ESCAPE '!'", "s ILIKE $1 ESCAPE '!'"),
            ("s LIKE ?, t", "s ILIKE $1 ESCAPE '', t"),
            ("s LIKE 'a(b' order by s", "s ILIKE 'a(b' ESCAPE '' order by s"),
        ] {
            #expect(try PostgreSQLPlaceholders.numberedForBothStores(predicate, from: 1) == numbered)
        }
        // Placeholders alone are numbered as written.
        #expect(PostgreSQLPlaceholders.numbered("text LIKE ?", from: 1) == "text LIKE $1")
    }

    @Test("LIKE in a fetch's condition ignores the case of ASCII letters on both stores")
    func likeMatchesAlike() async throws {
        let directory = try TemporaryDirectory()
        let (sqlite, postgreSQL) = try Self.appNetStores(in: directory)
        let posts: [JSONValue] = [
            ["id": "1", "text": "Swift on Linux"], ["id": "2", "text": "swift"], ["id": "3", "text": "Objective-C"],
            ["id": "4", "text": "ÉCOLE"], ["id": "5", "text": "école"],
        ]
        for store in [sqlite, postgreSQL] {
            _ = try await store.populate(["data": .array(posts)], entity: "Post")
        }
        let cases = [
            ("text LIKE ?", "%SWIFT%"), ("text NOT LIKE ?", "s%"), ("text LIKE ?", "%cole"), ("text LIKE ?", "é%"),
            ("text LIKE ?", "%ÉCOLE"),
        ]
        for (predicate, argument) in cases {
            let expected = try sqlite.fetch(
                "Post", where: predicate, arguments: [argument], orderBy: [.ascending("id")])
            let fetched = try postgreSQL.fetch(
                "Post", where: predicate, arguments: [argument], orderBy: [.ascending("id")])
            #expect(fetched.map(\.primaryKeyValue) == expected.map(\.primaryKeyValue), "\(predicate) \(argument)")
            #expect(try postgreSQL.count("Post", where: predicate, arguments: [argument]) == expected.count)
        }
        #expect(
            try postgreSQL.fetch("Post", where: "text LIKE ?", arguments: ["%SWIFT%"]).map(\.primaryKeyValue)
                == ["1", "2"])
        // Only ASCII letters are folded, on both: é matches école, not ÉCOLE.
        #expect(try postgreSQL.fetch("Post", where: "text LIKE ?", arguments: ["é%"]).map(\.primaryKeyValue) == ["5"])
    }

    @Test("a predicate naming the column user unquoted fails on PostgreSQL instead of matching nothing")
    func aPredicateWithAnUnquotedUserFails() async throws {
        let schema = try PostgreSQLStores.shippedSchema("AppNet")
        let server = try PostgreSQLTestServer.shared()
        let store = try RecordStore(postgreSQL: server.url(database: try server.makeDatabase()), schema: schema)
        _ = try await store.populate(
            ["data": [["id": "1", "text": "a", "user": ["id": "u1"]], ["id": "2", "text": "b"]]], entity: "Post")
        let user = try #require(try store.fetchOne("User", primaryKey: "u1"))
        let error = try #require(throws: WebRecordError.self) {
            try store.count("Post", where: "user = ?", arguments: [user.rowID])
        }
        #expect(error.code == .invalidArgument)
        #expect(try store.count("Post", where: "\"user\" = ?", arguments: [user.rowID]) == 1)
        #expect(try store.fetch("Post", where: "\"user\" IS NULL").map(\.primaryKeyValue) == ["2"])
    }

    /// Two empty stores of the App.net schema: a SQLite file in `directory` and a new database
    /// of the test server.
    static func appNetStores(in directory: TemporaryDirectory) throws -> (sqlite: RecordStore, postgreSQL: RecordStore)
    {
        let schema = try PostgreSQLStores.shippedSchema("AppNet")
        let server = try PostgreSQLTestServer.shared()
        return (
            try RecordStore(path: directory.path("s.sqlite"), schema: schema),
            try RecordStore(postgreSQL: server.url(database: try server.makeDatabase()), schema: schema)
        )
    }

    @Test("a fetch's predicate with a dollar-quoted ? binds only its real placeholders")
    func aPredicateWithQuotedQuestionMarksFetchesTheRightRecords() async throws {
        let schema = try PostgreSQLStores.shippedSchema("AppNet")
        let server = try PostgreSQLTestServer.shared()
        let store = try RecordStore(postgreSQL: server.url(database: try server.makeDatabase()), schema: schema)
        let posts: [JSONValue] = [
            ["id": "1", "text": "?", "user": ["id": "u1"]],
            ["id": "2", "text": "why?", "user": ["id": "u1"]],
            ["id": "3", "text": "it's ?", "user": ["id": "u1"]],
        ]
        _ = try await store.populate(["data": .array(posts)], entity: "Post")

        func ids(_ predicate: String, _ arguments: [String]) throws -> [JSONValue?] {
            try store.fetch("Post", where: predicate, arguments: arguments, orderBy: [.ascending("id")])
                .map(\.primaryKeyValue)
        }
        #expect(try ids("text <> $$?$$ and id = ?", ["1"]) == [])
        #expect(try ids("text <> $$?$$ and id = ?", ["2"]) == ["2"])
        #expect(try ids("text = $tag$?$tag$ or id = ?", ["3"]) == ["1", "3"])
        #expect(try ids("text = E'it\\'s ?' /* or ? */ -- and ?\n", []) == ["3"])
        #expect(try ids("text <> '?' /* ? /* ? */ ? */ and id <> ?", ["2"]) == ["3"])
    }

    @Test("a predicate that ends with a -- comment fetches and counts on both stores")
    func aPredicateEndingWithALineComment() async throws {
        let directory = try TemporaryDirectory()
        let (sqlite, postgreSQL) = try Self.appNetStores(in: directory)
        let posts: [JSONValue] = [["id": "1", "text": "a", "user": ["id": "u1"]], ["id": "2", "text": "b"]]
        for store in [postgreSQL, sqlite] {
            _ = try await store.populate(["data": .array(posts)], entity: "Post")
            let predicate = "text = ? -- the second post"
            let fetched = try store.fetch("Post", where: predicate, arguments: ["b"], orderBy: [.ascending("id")])
            #expect(fetched.map(\.primaryKeyValue) == ["2"])
            #expect(try store.count("Post", where: predicate, arguments: ["b"]) == 1)
        }
    }
}
