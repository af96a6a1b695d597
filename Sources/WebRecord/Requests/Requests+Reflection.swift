import Foundation

// MARK: - Request options, batches and pages shown with their secrets redacted
//
// Results, pages and page information hold only these types and the server layer's (page
// managers included), each of which redacts itself, so their default `print` and `dump`
// output is redacted too.

extension RequestOptions: CustomReflectable {
    /// The options for `print`, `String(reflecting:)` and `dump`, with the values of secret
    /// headers redacted (see ``Redaction/secretNames``).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "population": population, "server": server as Any, "domain": domain as Any,
                "headers": Redaction.headers(headers), "method": method, "timeout": timeout as Any,
                "customResponse": customResponse as Any,
            ],
            displayStyle: .struct)
    }
}

extension BatchRequest: CustomReflectable {
    /// The batch member for `print`, `String(reflecting:)` and `dump`, with the secrets of its
    /// URN, parameters and options redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "entity": entity, "urn": Redaction.urn(urn), "data": Redaction.json(data) as Any, "options": options,
            ],
            displayStyle: .struct)
    }
}

extension PageSequence: CustomReflectable {
    /// The sequence for `print`, `String(reflecting:)` and `dump`, with the secrets of its first
    /// URN, parameters and options redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "entity": entity, "urn": Redaction.urn(urn), "data": Redaction.json(data) as Any, "options": options,
            ],
            displayStyle: .struct)
    }
}
