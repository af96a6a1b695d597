import Foundation

/// A Swift type that a record's attribute can be read as.
///
/// For example:
///
/// ```swift
/// let text: String? = post["text"]
/// let date: Date? = post["date"]
/// ```
public protocol AttributeValue: Sendable {
    /// The value for a stored column value of an attribute of `type`, or nil when it does not convert.
    init?(storedValue: DatabaseValue, type: AttributeType)
}

extension String: AttributeValue {
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        switch storedValue {
        case .text(let text): self = text
        case .integer(let number) where type != .boolean: self = String(number)
        case .real(let number): self = String(number)
        default: return nil
        }
    }
}

extension Int64: AttributeValue {
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        switch storedValue {
        case .integer(let number): self = number
        case .real(let number):
            guard let number = Int64(exactly: number) else { return nil }
            self = number
        case .text(let text) where type == .decimal:
            // Exactly, through the decimal's text: "12.0" is 12, "1.5" and 20 digits are nil.
            guard let number = JSONNumberText.exactInteger(text) else { return nil }
            self = number
        default: return nil
        }
    }
}

extension Int: AttributeValue {
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        guard let number = Int64(storedValue: storedValue, type: type) else { return nil }
        self = Int(number)
    }
}

extension Int32: AttributeValue {
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        guard let number = Int64(storedValue: storedValue, type: type), let narrow = Int32(exactly: number) else {
            return nil
        }
        self = narrow
    }
}

extension Double: AttributeValue {
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        switch storedValue {
        case .integer(let number): self = Double(number)
        case .real(let number): self = number
        case .text(let text) where type == .decimal:
            guard let number = Double(text) else { return nil }
            self = number
        default: return nil
        }
    }
}

extension Decimal: AttributeValue {
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        switch storedValue {
        // A decimal's text only, as `Int64` and `Double` read it: a string that looks like a
        // number is a string.
        case .text(let text) where type == .decimal:
            guard let value = DecimalCoding.decimal(from: text) else { return nil }
            self = value
        case .integer(let number): self = Decimal(number)
        // Through its shortest text: `Decimal(0.1 as Double)` would be 0.1000000000000000512.
        case .real(let number):
            guard let value = DecimalCoding.decimal(from: number.description) else { return nil }
            self = value
        default: return nil
        }
    }
}

extension Bool: AttributeValue {
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        guard case .integer(let number) = storedValue else { return nil }
        self = number != 0
    }
}

extension Date: AttributeValue {
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        switch storedValue {
        case .text(let text):
            guard let date = DateCoding.date(fromISO8601: text) else { return nil }
            self = date
        case .real(let seconds) where Self.acceptsUnixSeconds(type): self = Date(timeIntervalSince1970: seconds)
        case .integer(let seconds) where Self.acceptsUnixSeconds(type):
            self = Date(timeIntervalSince1970: Double(seconds))
        default: return nil
        }
    }
}

extension Date {
    /// Whether a number stored for an attribute of `type` reads as seconds since 1970: for a
    /// date written by another tool, or a numeric timestamp; never for a boolean.
    fileprivate static func acceptsUnixSeconds(_ type: AttributeType) -> Bool {
        type == .date || type == .integer || type == .double
    }
}

extension Data: AttributeValue {
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        switch storedValue {
        case .blob(let data): self = data
        case .text(let text): self = Data(text.utf8)
        default: return nil
        }
    }
}

extension UUID: AttributeValue {
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        guard case .text(let text) = storedValue, let uuid = UUID(uuidString: text) else { return nil }
        self = uuid
    }
}

extension URL: AttributeValue {
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        guard case .text(let text) = storedValue, let url = URL(string: text) else { return nil }
        self = url
    }
}

extension JSONValue: AttributeValue {
    /// The attribute as JSON: `json` attributes parsed, dates as ISO-8601 text, data as base64,
    /// booleans as true/false, everything else as its natural JSON type.
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        switch (storedValue, type) {
        case (.null, _): self = .null
        case (.text(let text), .json):
            guard let value = try? JSONReader().read(text) else { return nil }
            self = value
        case (.integer(let number), .boolean): self = .bool(number != 0)
        case (.integer(let number), _): self = .integer(number)
        case (.real(let number), _): self = .double(number)
        case (.text(let text), _): self = .string(text)
        case (.blob(let data), _): self = .string(data.base64EncodedString())
        }
    }
}
