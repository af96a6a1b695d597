/// SQL-injection payloads, shared by the security tests of the SQLite store
/// (`ReliabilitySecurityTests`) and of the PostgreSQL store (`PostgreSQLInjectionTests`): each
/// store must keep every one of them as data, verbatim, and run none.
public enum InjectionPayloads {
    /// Names that are not identifiers, which a schema refuses for an entity, an attribute or a
    /// relationship.
    public static let names = [
        #"Post"; DROP TABLE Post; --"#, "Post; DROP TABLE Post", "x' OR '1'='1", "a b", "a-b", "a.b", "[Post]",
        "`Post`",
        "Post\u{0}", "Pöst", "1Post", "", "_webrecord_metadata", "sqlite_master",
    ]

    /// Values for keys and attributes: quotes, comments, statement separators, parameter
    /// markers of every syntax, SQLite's and PostgreSQL's functions and quoting (`$$`, `E''`,
    /// `U&""`), the markers and escapes of `COPY`'s text format, a NUL character and characters
    /// outside the Basic Multilingual Plane.
    public static let values = [
        "'; DROP TABLE Post; --", #"" OR 1=1 --"#, "Robert'); DROP TABLE \"User\";--",
        "' UNION SELECT name FROM sqlite_master --",
        "'||(SELECT sqlite_version())||'", "?", "?1", ":text", "@id", "$1", "%s%n%x", "\\'; --", "\u{0}after NUL",
        "\"; ATTACH DATABASE '/tmp/evil.db' AS evil; --", "*/ DELETE FROM \"Post\" /*", "\u{2028}\u{FEFF}日本😀",
        "'; SELECT pg_sleep(10); --", "$$; DROP SCHEMA public CASCADE; $$", "$tag$ DROP TABLE \"Post\" $tag$",
        "E'\\x27'; TRUNCATE \"Post\"; --", #"U&"\0041"; COPY "Post" TO PROGRAM 'touch /tmp/evil'; --"#,
        "' OR pg_terminate_backend(pg_backend_pid()) --",
        // The text format of PostgreSQL's COPY, in which a PostgreSQL store sends new rows: its
        // NULL marker, its end-of-data marker, its field and line separators, its escapes.
        "\\N", "\\.", "\\.\n\\N\tDROP", "a\tb\nc\rd", "\\x41\\t\\n", "end\\",
    ]

    /// ``values`` without those holding a NUL character, which PostgreSQL cannot store in a text
    /// (a PostgreSQL store refuses them with `invalidArgument` and writes nothing).
    public static var valuesWithoutNUL: [String] {
        values.filter { !$0.contains("\u{0}") }
    }
}
