import WebRecord

/// WebRecord's stored dates (`2012-11-21T02:33:42.000000000Z`) as a `timestamptz` column takes them (a
/// column of a statement of your own: a store's own date columns are `text`).
///
/// A stored date's year runs from `0000` to `9999`, as ISO 8601 counts years: its year 0 is
/// 1 BC. PostgreSQL counts as historians do, with no year 0, and refuses `0000-...`: it takes
/// the same instant as `0001-... BC`. So a date of the year `0000` is written with its year
/// as `0001` and ` BC` after it, and read back as `0000` (`PostgreSQLText.storedDate(fromISO:)`);
/// both calendars are proleptic Gregorian, so the month and day stay. Every other value is
/// written as it is.
enum PostgreSQLDates {
    /// `value` as a `timestamptz` column takes it.
    static func storable(_ value: DatabaseValue) -> DatabaseValue {
        guard case .text(let text) = value, text.hasPrefix("0000-") else { return value }
        return .text("0001" + text.dropFirst(4) + " BC")
    }

    /// `values` as a column of PostgreSQL type `type` takes them: ``storable(_:)`` for a
    /// `timestamptz` column, the values themselves otherwise.
    static func storable(_ values: [DatabaseValue], type: String) -> [DatabaseValue] {
        type == "timestamptz" ? values.map(storable) : values
    }
}
