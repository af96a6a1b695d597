import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// Two values are equal as SQLite compares them in a key or a unique index: text byte for
/// byte, with no Unicode normalization (`"é"` written as one code point and as `e` plus a
/// combining accent are two values, as they are two rows in the store), unlike Swift's
/// `String ==`. Keys therefore compare the same way inside one response, across responses
/// and in the store (DESIGN §3.3).
public enum DatabaseValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether the value is SQL NULL.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    public static func == (lhs: DatabaseValue, rhs: DatabaseValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.integer(let left), .integer(let right)): left == right
        case (.real(let left), .real(let right)): left == right
        case (.text(let left), .text(let right)): sameUTF8(left, right)
        case (.blob(let left), .blob(let right)): left == right
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .integer(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .real(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .text(let value):
            hasher.combine(3 as UInt8)
            hashUTF8(value, into: &hasher)
        case .blob(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        }
    }

    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'\(value)'"
        case .blob(let value): "<\(value.count) bytes>"
        }
    }
}

/// A Swift value that can be bound as an SQL argument.
///
/// For example:
///
/// ```swift
/// let posts = try store.fetch("Post", where: "text LIKE ? AND id > ?", arguments: ["%swift%", 100])
/// ```
public protocol DatabaseValueConvertible: Sendable {
    /// The value to bind.
    var databaseValue: DatabaseValue { get }
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }
}

extension Int32: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }
}

extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
}

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob(self) }
}

extension Date: DatabaseValueConvertible {
    /// Dates bind as WebRecord stores them: ISO-8601 UTC text with nine fraction digits, to the
    /// nearest microsecond (see ``Timestamp/init(_:)-(Date)``; bind a ``Timestamp`` for
    /// nanoseconds). A date outside the years 0000–9999 binds as seconds since 1970.
    public var databaseValue: DatabaseValue {
        DateCoding.string(from: self).map(DatabaseValue.text) ?? .real(timeIntervalSince1970)
    }
}

extension UUID: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(uuidString) }
}

extension URL: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(absoluteString) }
}

extension Decimal: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(DecimalCoding.string(from: self)) }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
}
