import Foundation

// A timestamp read from a stored date. The conformance lives in Store/, beside the protocol,
// because Values/ sits below the store layer.
extension Timestamp: AttributeValue {
    /// The timestamp of a stored date: its text, or seconds since 1970 stored as a number by
    /// another tool (an integer exactly, a real to the nearest microsecond).
    public init?(storedValue: DatabaseValue, type: AttributeType) {
        switch storedValue {
        case .text(let text): self.init(text)
        case .integer(let seconds) where type == .date || type == .integer || type == .double:
            self.init(seconds: seconds)
        case .real(let seconds) where type == .date || type == .integer || type == .double:
            self.init(Date(timeIntervalSince1970: seconds))
        default: return nil
        }
    }
}
