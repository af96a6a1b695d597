/// What SQLite does with the names a schema turns into tables, columns and indexes.
enum SQLiteNames {
    /// The most columns SQLite lets a table have (`SQLITE_MAX_COLUMN`, 2000 unless SQLite was
    /// built with another limit).
    static let maximumColumnCount = 2000

    /// `name` as SQLite compares identifiers: ASCII letters without regard to case, every other
    /// character as it is. `Post` and `post` are one table; `É` and `é` are two.
    static func folded(_ name: String) -> String {
        String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { scalar in
                    ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar
                }))
    }

    /// A name in `names` that SQLite takes for `name`, but that is not spelt the same.
    static func caseVariant(of name: String, in names: some Sequence<String>) -> String? {
        let key = folded(name)
        return names.filter { $0 != name && folded($0) == key }.sorted().first
    }
}
